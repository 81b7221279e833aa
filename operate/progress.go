package operate

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// barWidth is the progress bar's length in cells; the whole line stays
// under 80 columns.
const barWidth = 20

// counts is what a progress line shows: how many of total items were sent
// (uploaded or queued), and how their jobs stand.
type counts struct {
	Total, Sent, Succeeded, Failed int
}

// remaining is what has not finished yet, sent or not.
func (c counts) remaining() int { return c.Total - c.Succeeded - c.Failed }

// progress shows counts on a terminal as one bar redrawn in place, and
// elsewhere (a pipe, a file, CI logs) as a plain line per change. It is
// also the writer of the command's log lines, which it prints above the
// bar so the two never mix.
type progress struct {
	w     io.Writer
	tty   bool
	label string
	start time.Time

	mu    sync.Mutex
	cur   counts
	last  string // the plain line last printed
	drawn bool   // whether a bar is on screen
}

// newProgress returns a progress display on w, drawn as a bar when w is
// a terminal (and TERM is not "dumb").
func newProgress(w io.Writer, getenv func(string) string, label string) *progress {
	return &progress{w: w, tty: isTerminal(w) && getenv("TERM") != "dumb", label: label, start: time.Now()}
}

// isTerminal reports whether w is a character device: a terminal, or
// /dev/null, where a bar harms nobody.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update shows new counts.
func (p *progress) update(c counts) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = c
	if p.tty {
		p.draw()
		return
	}
	line := p.plain()
	if line != p.last {
		fmt.Fprintln(p.w, line)
		p.last = line
	}
}

// done ends the display: the bar's line is kept, and the cursor moves on.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		p.draw()
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// Write prints a log line above the bar.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	n, err := p.w.Write(b)
	if p.tty && p.drawn {
		p.draw()
	}
	return n, err
}

// draw redraws the bar line in place: compact, to fit 80 columns.
func (p *progress) draw() {
	c := p.cur
	fmt.Fprintf(p.w, "\r%s %s sent %d/%d · ok %d · failed %d · left %d · %s\033[K",
		p.label, bar(c), c.Sent, c.Total, c.Succeeded, c.Failed, c.remaining(), time.Since(p.start).Truncate(time.Second))
	p.drawn = true
}

// plain is the counts as words: "ingest: sent 3/4, succeeded 2, failed 1, remaining 1".
func (p *progress) plain() string {
	c := p.cur
	return fmt.Sprintf("%s: sent %d/%d, succeeded %d, failed %d, remaining %d",
		p.label, c.Sent, c.Total, c.Succeeded, c.Failed, c.remaining())
}

// bar draws the finished share of the items: "[#######-------------]".
func bar(c counts) string {
	full := barWidth
	if c.Total > 0 {
		full = barWidth * (c.Succeeded + c.Failed) / c.Total
	}
	return "[" + strings.Repeat("#", full) + strings.Repeat("-", barWidth-full) + "]"
}
