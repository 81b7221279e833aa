package turn

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// ReplayTTL is how long a finished reply that could not be stored keeps its
// events in memory. A stored reply's events leave memory at once: they are
// in PostgreSQL until the purge (ReplayRetention), where Resume reads them.
const ReplayTTL = 10 * time.Minute

// ReplayRetention is how long stored reply events are kept for clients
// reconnecting with Last-Event-ID (the contract promises at least 5 min).
const ReplayRetention = 30 * time.Minute

// Replays keeps the events of the replies this replica is streaming, until
// they are stored, so that a reconnecting client can follow a reply still
// under way. Memory holds only replies in flight (and, for ReplayTTL, those
// whose storing failed), however many were streamed. It is safe for
// concurrent use.
type Replays struct {
	mu      sync.Mutex
	replies map[string]*replay
	now     func() time.Time
}

type replay struct {
	tenant  domain.TenantID
	session string
	events  []domain.ReplyEvent
	done    bool
	ended   time.Time
	// changed is closed and replaced whenever an event arrives.
	changed chan struct{}
}

// NewReplays returns an empty hub; now nil is time.Now.
func NewReplays(now func() time.Time) *Replays {
	if now == nil {
		now = time.Now
	}
	return &Replays{replies: map[string]*replay{}, now: now}
}

func (r *Replays) start(tenant domain.TenantID, session, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sweepLocked()
	r.replies[message] = &replay{tenant: tenant, session: session, changed: make(chan struct{})}
}

func (r *Replays) add(ev domain.ReplyEvent, last bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rp := r.replies[ev.MessageID]
	if rp == nil || rp.done {
		return
	}
	rp.events = append(rp.events, ev)
	if last {
		rp.done, rp.ended = true, r.now()
	}
	close(rp.changed)
	rp.changed = make(chan struct{})
}

// forget drops a finished reply once it is stored: from then on Resume
// reads its events from the store. Followers already under way keep their
// reference and end normally (they have seen or will see its last event).
func (r *Replays) forget(message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rp := r.replies[message]; rp != nil && rp.done {
		delete(r.replies, message)
	}
}

// sweepLocked forgets replies that ended more than ReplayTTL ago.
func (r *Replays) sweepLocked() {
	cut := r.now().Add(-ReplayTTL)
	for id, rp := range r.replies {
		if rp.done && rp.ended.Before(cut) {
			delete(r.replies, id)
		}
	}
}

// Follow calls fn with each event of the reply after seq after, waiting for
// the ones still to come, until the last one. found is false when this
// replica does not hold the reply (of that tenant and session).
func (r *Replays) Follow(ctx context.Context, tenant domain.TenantID, session, message string, after int,
	fn func(domain.ReplyEvent) error) (found bool, err error) {
	r.mu.Lock()
	rp := r.replies[message]
	r.mu.Unlock()
	if rp == nil || rp.tenant != tenant || rp.session != session {
		return false, nil
	}
	// rp stays ours when forget drops it from the map: the reply has
	// ended by then, so the loop below ends too.
	next := after
	for {
		r.mu.Lock()
		var todo []domain.ReplyEvent
		for _, ev := range rp.events {
			if ev.Seq > next {
				todo = append(todo, ev)
			}
		}
		done, changed := rp.done, rp.changed
		r.mu.Unlock()
		for _, ev := range todo {
			if err := fn(ev); err != nil {
				return true, err
			}
			next = ev.Seq
		}
		if done {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-changed:
		}
	}
}
