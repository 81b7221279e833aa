package memindex

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cs-assistant/assistant/store/internal/topk"
)

// Searches of one shard that run at the same time share their code scans
// (a cooperative scan). The scan is bound by the bytes it reads from
// memory, so scoring each block of codes for every search that needs it,
// while the block is in the cache, costs little more than scoring it for
// one.
//
// The blocks of a shard are handed out in one circular sequence of
// claims. A search that arrives takes the next claim as its first and
// needs the claims that follow, one per block: it joins the pass where
// it is, and its window wraps around to the blocks before. Whoever
// processes a claim scores its block for every search whose window holds
// it, so each search sees each block once, however the searches
// overlap. Each search brings its own workers (scan.run's number), which
// take claims until its window is handed out, then wait for the blocks
// others took to be scored. A lone search therefore runs as it would
// alone; under load, the searches that overlap read each block once.

// together coordinates the int4 scans of one shard. Its zero value is
// ready to use.
type together struct {
	mu   sync.Mutex
	next int64  // the next claim
	jobs []*job // the searches whose windows are not all scored
}

// job is one search's part in the shard's shared scans.
type job struct {
	ctx context.Context
	sc  *scan
	m   int        // candidates kept for rescoring
	q   *int4Query // the query as the int4 kernels read it

	// first is the job's first claim; it needs blocks claims, of rows
	// rows each (the last block shorter).
	first  int64
	blocks int64
	rows   int
	left   atomic.Int64 // blocks not yet scored

	mu     sync.Mutex // guards top and failed
	top    *topk.Heap[float32]
	failed error

	best []candidate
	err  error
	done chan struct{} // closed when best or err is set
}

// search runs the job with workers goroutines (the calling one among
// them) and returns when its result is in. block is the rows a claim
// covers.
func (g *together) search(j *job, workers, block int, k kernels) {
	g.attach(j, block)
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(func() { g.work(j, k) })
	}
	g.work(j, k)
	wg.Wait()
	<-j.done
}

// attach gives j its window, starting at the next claim.
func (g *together) attach(j *job, block int) {
	n := j.sc.s.len()
	j.rows, j.blocks = block, int64((n+block-1)/block)
	j.top = topk.New[float32](j.m, j.sc.s.chunks)
	j.left.Store(j.blocks)
	j.done = make(chan struct{})
	g.mu.Lock()
	j.first = g.next
	g.jobs = append(g.jobs, j)
	g.mu.Unlock()
	if j.blocks == 0 {
		g.finish(j)
	}
}

// work takes claims while own's window has some left, and scores each
// claim's block for every job that needs it.
func (g *together) work(own *job, k kernels) {
	var members []*job
	var locals []*topk.Heap[float32]
	for {
		c, ok := g.claim(own, &members)
		if !ok {
			return
		}
		for len(locals) < len(members) {
			locals = append(locals, topk.New[float32](1, nil))
		}
		g.score(c, members, locals[:len(members)], k)
	}
}

// claim takes the next claim if own's window holds it, and sets *members
// to the jobs whose windows do.
func (g *together) claim(own *job, members *[]*job) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.next
	if c >= own.first+own.blocks {
		return 0, false
	}
	g.next++
	*members = (*members)[:0]
	for _, j := range g.jobs {
		if j.first <= c && c < j.first+j.blocks {
			*members = append(*members, j)
		}
	}
	return c, true
}

// score scores block c mod blocks for members, int4Batch rows for each in
// turn, into locals (one per member), and merges each member's part into
// its heap; the member whose last block this was is finished.
func (g *together) score(c int64, members []*job, locals []*topk.Heap[float32], k kernels) {
	b := int(c % members[0].blocks) // all of one shard: one number of blocks
	n := members[0].sc.s.len()
	lo, hi := b*members[0].rows, min((b+1)*members[0].rows, n)
	for i, j := range members {
		// Only what could enter the job's heap as it stands.
		j.mu.Lock()
		locals[i].ResetAbove(j.m, j.sc.s.chunks, j.top)
		j.mu.Unlock()
	}
	var errs []error
	for sub := lo; sub < hi; sub += int4Batch {
		end := min(sub+int4Batch, hi)
		for i, j := range members {
			if errs != nil && errs[i] != nil {
				continue
			}
			if err := j.sc.int4Rows(j.ctx, sub, end, locals[i], j.q, k); err != nil {
				if errs == nil {
					errs = make([]error, len(members))
				}
				errs[i] = err
			}
		}
	}
	for i, j := range members {
		j.mu.Lock()
		if errs != nil && errs[i] != nil && j.failed == nil {
			j.failed = errs[i]
		}
		j.top.Merge(locals[i])
		j.mu.Unlock()
		if j.left.Add(-1) == 0 {
			g.finish(j)
		}
	}
}

// finish takes j out of the shard's jobs and sets its result: its
// candidates rescored, or why it failed.
func (g *together) finish(j *job) {
	g.mu.Lock()
	for i, o := range g.jobs {
		if o == j {
			g.jobs = append(g.jobs[:i], g.jobs[i+1:]...)
			break
		}
	}
	g.mu.Unlock()
	switch {
	case j.failed != nil:
		j.err = j.failed
	case j.ctx.Err() != nil:
		j.err = j.ctx.Err()
	default:
		j.best = j.sc.rescore(j.top.Sorted())
	}
	close(j.done)
}

// scanWorkers is how many goroutines scan n rows: scan.run's rule.
func scanWorkers(n, rowsPerWorker int) int {
	return min(runtime.GOMAXPROCS(0), max(1, n/rowsPerWorker))
}
