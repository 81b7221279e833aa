package turn

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// StageEvent is one stage of one message, as the runtime observer
// publishes it.
type StageEvent struct {
	SessionID string
	MessageID string
	TraceID   string
	Stage     domain.StageTrace
	// Message, when set, makes the event a message that joined the
	// session (a customer's to a person, or an agent's reply); Stage is
	// then zero.
	Message *domain.SessionMessage `json:",omitempty"`
}

// PublishMessage tells this replica's watchers of the message's session
// that it joined the session.
func (o *Observer) PublishMessage(m domain.SessionMessage) {
	o.publish(m.TenantID, StageEvent{SessionID: m.SessionID, MessageID: m.ID, TraceID: m.TraceID, Message: &m})
}

// observerBuffer is how many events a slow watcher may lag behind before
// events are dropped for it (and counted, see Subscription.Dropped).
const observerBuffer = 256

// Observer publishes each stage of each message to the watchers of its
// session on this replica. It is safe for concurrent use.
type Observer struct {
	mu   sync.Mutex
	subs map[string]map[*Subscription]struct{}
	// closed: closeAll ran; later subscriptions start closed.
	closed bool
}

// Subscription receives one session's stage events.
type Subscription struct {
	// Events delivers the events; it is closed by Close.
	Events  chan StageEvent
	o       *Observer
	key     string
	mu      sync.Mutex
	dropped int
	closed  bool
}

// NewObserver returns an observer with no watchers.
func NewObserver() *Observer {
	return &Observer{subs: map[string]map[*Subscription]struct{}{}}
}

func sessionKey(tenant domain.TenantID, session string) string {
	return string(tenant) + "\x00" + session
}

// Subscribe starts watching a session; Close the subscription when done.
func (o *Observer) Subscribe(tenant domain.TenantID, session string) *Subscription {
	s := &Subscription{Events: make(chan StageEvent, observerBuffer), o: o, key: sessionKey(tenant, session)}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		s.closed = true
		close(s.Events)
		return s
	}
	if o.subs[s.key] == nil {
		o.subs[s.key] = map[*Subscription]struct{}{}
	}
	o.subs[s.key][s] = struct{}{}
	return s
}

// Watchers returns how many subscriptions watch a session.
func (o *Observer) Watchers(tenant domain.TenantID, session string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.subs[sessionKey(tenant, session)])
}

// Close stops the subscription and closes Events.
func (s *Subscription) Close() {
	s.o.mu.Lock()
	delete(s.o.subs[s.key], s)
	if len(s.o.subs[s.key]) == 0 {
		delete(s.o.subs, s.key)
	}
	s.o.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.Events)
	}
}

// closeAll closes every subscription, and the ones that come later, for
// the end of the process (Runner.Drain).
func (o *Observer) closeAll() {
	o.mu.Lock()
	o.closed = true
	var all []*Subscription
	for _, subs := range o.subs {
		for s := range subs {
			all = append(all, s)
		}
	}
	o.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}

// Dropped returns how many events were dropped because the watcher lagged.
func (s *Subscription) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

func (o *Observer) publish(tenant domain.TenantID, ev StageEvent) {
	o.mu.Lock()
	subs := make([]*Subscription, 0, len(o.subs[sessionKey(tenant, ev.SessionID)]))
	for s := range o.subs[sessionKey(tenant, ev.SessionID)] {
		subs = append(subs, s)
	}
	o.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		if !s.closed {
			select {
			case s.Events <- ev:
			default:
				s.dropped++
			}
		}
		s.mu.Unlock()
	}
}

// now returns the clock of d.
func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Watch starts watching a session of tenant; an unknown session (or
// another tenant's) is CodeNotFound.
func (r *Runner) Watch(ctx context.Context, tenant domain.TenantID, session string) (*Subscription, error) {
	if _, err := r.d.Chat.GetSession(ctx, tenant, session); err != nil {
		return nil, err
	}
	return r.d.Observer.Subscribe(tenant, session), nil
}
