package turn

import "time"

// errShuttingDown is the cause of the generations Interrupt stopped.
const errShuttingDown = sentinel("turn: the service is shutting down")

// drainMargin is the most of a shutdown timeout Drain keeps for storing
// interrupted replies and sending their last event.
const drainMargin = 5 * time.Second

// Drain prepares the runner for the end of the process, when the HTTP
// server begins its graceful shutdown with timeout. Session watchers end at
// once: they would hold the shutdown for the whole timeout, and an
// EventSource reconnects to another replica by itself. Replies go on, but
// generations still running when the timeout is about to run out (a
// quarter of it, at most drainMargin, before) are interrupted, so that
// each reply is stored as far as it got, and its stream ends with an
// interrupted error event, before the process exits; without that the
// reply would be lost with the process. stop cancels the interruption
// still to come (the shutdown ended first).
func (r *Runner) Drain(timeout time.Duration) (stop func()) {
	r.d.Observer.closeAll()
	t := time.AfterFunc(timeout-min(timeout/4, drainMargin), r.Interrupt)
	return func() { t.Stop() }
}

// Interrupt stops every generation under way, and any started later:
// replies are stored as interrupted, as far as they got, and a streamed one
// ends with an interrupted error event telling the client to send the
// message again.
func (r *Runner) Interrupt() { r.interrupt(errShuttingDown) }
