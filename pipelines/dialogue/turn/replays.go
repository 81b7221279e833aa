package turn

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// ReplayTTL is how long a finished reply's events stay in memory; they stay
// in PostgreSQL until the purge (ReplayRetention).
const ReplayTTL = 10 * time.Minute

// ReplayRetention is how long stored reply events are kept for clients
// reconnecting with Last-Event-ID (the contract promises at least 5 min).
const ReplayRetention = 30 * time.Minute

// Replays keeps the events of the replies this replica is streaming or
// streamed recently, so that a reconnecting client can follow a reply
// still under way. It is safe for concurrent use.
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
	next := after
	for {
		r.mu.Lock()
		rp := r.replies[message]
		if rp == nil || rp.tenant != tenant || rp.session != session {
			r.mu.Unlock()
			return false, nil
		}
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
