package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/cs-assistant/assistant/clients/go"
)

// tally is what customers measured. Each customer keeps its own, merged
// once they are all done, so nothing is shared while they run.
type tally struct {
	// firstDelta and done are, per reply that ended with done, the time
	// from sending the message to its first delta event (replies with
	// one) and to done.
	firstDelta, done []time.Duration
	// transferred counts the replies handed over to a human.
	transferred int
	// sessions counts the sessions opened.
	sessions int
	errors   errorCounts
}

// merge adds o to t.
func (t *tally) merge(o tally) {
	t.firstDelta = append(t.firstDelta, o.firstDelta...)
	t.done = append(t.done, o.done...)
	t.transferred += o.transferred
	t.sessions += o.sessions
	for k, n := range o.errors {
		t.errors.add(k, n)
	}
}

// errorCounts counts failures by kind ("429 rate_limited", "timeout", ...).
type errorCounts map[string]int

func (e *errorCounts) add(kind string, n int) {
	if *e == nil {
		*e = errorCounts{}
	}
	(*e)[kind] += n
}

// total is the number of failures of every kind.
func (e errorCounts) total() int {
	n := 0
	for _, v := range e {
		n += v
	}
	return n
}

// errorBackoff is how long a customer waits after a failure before trying
// again, so a failing service is not hammered in a tight loop.
const errorBackoff = 500 * time.Millisecond

// converse runs cfg.Customers customers until sending ends (the caller's
// deadline), each opening a session and then sending messages from msgs
// in a cycle, one after another. Replies under way when sending ends are
// waited for (up to cfg.MessageTimeout); stop (SIGINT) cancels them. It
// returns what they measured and how long they took.
func converse(stop, sending context.Context, s *service, cfg Config, msgs []string) (tally, time.Duration) {
	began := time.Now()
	results := make([]tally, cfg.Customers)
	var wg sync.WaitGroup
	for i := range cfg.Customers {
		wg.Go(func() { results[i] = customer(stop, sending, s, cfg, msgs, i) })
	}
	wg.Wait()
	took := time.Since(began)
	var all tally
	for _, r := range results {
		all.merge(r)
	}
	return all, took
}

// customer is the i-th customer's conversation: it starts at message i of
// the cycle, so customers ask different questions at any moment.
func customer(stop, sending context.Context, s *service, cfg Config, msgs []string, i int) tally {
	var t tally
	session := ""
	for k := i; sending.Err() == nil; {
		if session == "" {
			id, err := s.openSession(stop, cfg.MessageTimeout)
			if err != nil {
				t.errors.add("open session: "+errorKind(err), 1)
				pause(sending, errorBackoff)
				continue
			}
			session = id
			t.sessions++
		}
		r := s.ask(stop, cfg.MessageTimeout, session, msgs[k%len(msgs)])
		k++
		if r.err != nil {
			t.errors.add(errorKind(r.err), 1)
			pause(sending, errorBackoff)
			continue
		}
		t.done = append(t.done, r.done)
		if r.delta {
			t.firstDelta = append(t.firstDelta, r.firstDelta)
		}
		if r.transfer {
			// Handed over, the session waits for a person and the bot no
			// longer answers in it: the customer's next question opens a
			// new conversation.
			t.transferred++
			session = ""
		}
		pause(sending, cfg.Think)
	}
	return t
}

// pause waits d, or less when ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// openSession opens a chat session and returns its id.
func (s *service) openSession(ctx context.Context, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := s.api.CreateChatSessionWithResponse(ctx, &client.CreateChatSessionParams{XTenantId: s.tenant},
		client.ChatSessionCreateRequest{Channel: ptr("load-test")})
	if err != nil {
		return "", err
	}
	if r.StatusCode() != http.StatusCreated {
		return "", problemOf(r.StatusCode(), r.Body)
	}
	return r.JSON201.Id, nil
}

// reply is how one message went.
type reply struct {
	// firstDelta (when delta) and done are the times from sending to the
	// first delta event and to done.
	firstDelta, done time.Duration
	delta            bool
	transfer         bool
	err              error
}

// streamFailure is a stream that ended without done: with an error event
// (code) or without any end at all.
type streamFailure struct{ code string }

func (e streamFailure) Error() string {
	if e.code == "" {
		return "stream ended without done"
	}
	return "stream error event " + e.code
}

// ask sends message in the session with Accept: text/event-stream and
// reads the reply's events to the end.
func (s *service) ask(ctx context.Context, timeout time.Duration, session, message string) reply {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()
	st, err := client.StreamMessage(ctx, s.api, session, &client.PostChatMessageParams{XTenantId: s.tenant},
		client.ChatMessageRequest{Message: message})
	if err != nil {
		return reply{err: err}
	}
	defer st.Close()
	var r reply
	for {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			return reply{err: streamFailure{}}
		}
		if err != nil {
			return reply{err: err}
		}
		v, err := ev.ValueByDiscriminator()
		if err != nil {
			continue // an event this client does not know
		}
		switch e := v.(type) {
		case client.ChatStreamDeltaEvent:
			if !r.delta {
				r.delta, r.firstDelta = true, time.Since(began)
			}
		case client.ChatStreamDoneEvent:
			r.done, r.transfer = time.Since(began), e.Data.ShouldTransfer
			return r
		case client.ChatStreamErrorEvent:
			return reply{err: streamFailure{code: string(e.Data.Code)}}
		}
	}
}

// problemOf is the *client.ProblemError of a refused request.
func problemOf(status int, body []byte) error {
	pe := &client.ProblemError{StatusCode: status}
	if p, ok := decodeProblem(body); ok {
		pe.Problem = &p
	}
	return pe
}

// errorKind names the kind of a failure for the report: the HTTP status
// and problem code of a refused request (429 rate_limited has its own), an
// error event's code, a timeout, or what broke the connection.
func errorKind(err error) string {
	var pe *client.ProblemError
	var sf streamFailure
	switch {
	case errors.As(err, &pe):
		if pe.Problem != nil {
			return fmt.Sprintf("HTTP %d %s", pe.StatusCode, pe.Problem.Code)
		}
		return fmt.Sprintf("HTTP %d", pe.StatusCode)
	case errors.As(err, &sf):
		return sf.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout (-message-timeout)"
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed mid-reply"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // without the method and the URL, which names the session
	}
	return "transport: " + err.Error()
}
