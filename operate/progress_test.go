package operate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgressDisplay(t *testing.T) {
	t.Run("off a terminal: a plain line per change", func(t *testing.T) {
		var out bytes.Buffer
		p := newProgress(&out, func(string) string { return "" }, "ingest")
		p.update(counts{Total: 4})
		p.update(counts{Total: 4}) // unchanged: not repeated
		p.update(counts{Total: 4, Sent: 4, Succeeded: 3, Failed: 1})
		_, _ = p.Write([]byte("level=WARN msg=slow\n"))
		p.done()
		assert.Equal(t, "ingest: sent 0/4, succeeded 0, failed 0, remaining 4\n"+
			"ingest: sent 4/4, succeeded 3, failed 1, remaining 0\n"+
			"level=WARN msg=slow\n", out.String())
	})
	t.Run("on a terminal: one bar redrawn in place, log lines above it", func(t *testing.T) {
		var out bytes.Buffer
		p := &progress{w: &out, tty: true, label: "reindex"}
		p.update(counts{Total: 4, Sent: 4, Succeeded: 1})
		assert.True(t, strings.HasPrefix(out.String(), "\rreindex [#####---------------] sent 4/4 · ok 1 · failed 0 · left 3 · "), "%q", out.String())
		out.Reset()
		_, _ = p.Write([]byte("a log line\n"))
		assert.True(t, strings.HasPrefix(out.String(), "\r\033[Ka log line\n\rreindex ["), "cleared, written, redrawn: %q", out.String())
		out.Reset()
		p.update(counts{Total: 4, Sent: 4, Succeeded: 4})
		p.done()
		assert.Contains(t, out.String(), "[####################] sent 4/4 · ok 4 · failed 0 · left 0")
		assert.True(t, strings.HasSuffix(out.String(), "\033[K\n"), "the last bar stays, the cursor moves on: %q", out.String())
	})
	t.Run("a terminal is told from a buffer", func(t *testing.T) {
		assert.False(t, isTerminal(&bytes.Buffer{}))
	})
}
