// Package indexfeed shares one listener of the index changes every
// replica announces (store/pg's LISTEN connection) among the caches that
// follow them, so that a cache added costs no connection to PostgreSQL.
//
// A Feed is a change source like the store it listens through: each
// subscriber gets every change, in commit order, after a resync of its
// own once the connection listens (at once when it already does) and
// again whenever the connection is made anew. Subscribers are called one
// at a time, in the order they subscribed, on the listener's goroutine:
// they must be quick (drop a cache), as a slow one delays the others. The
// embedded search index, which reads the database to follow a change,
// keeps a listener of its own.
package indexfeed

import (
	"context"
	"slices"
	"sync"

	"github.com/cs-assistant/assistant/domain"
)

// Source is the listener a Feed shares (*pg.Store).
type Source interface {
	// ListenIndexChanges calls fn for every change until ctx ends, and
	// resync each time it listens anew, before the changes it then
	// carries.
	ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func())
}

// Feed hands the changes of one Source listener to its subscribers. It is
// safe for concurrent use.
type Feed struct {
	src Source

	mu sync.Mutex
	// listening: the source's first resync ran, so a new subscriber
	// resyncs at once rather than with the next connection.
	listening bool
	subs      []*subscriber // in order of subscription
}

// subscriber is one follower of the feed.
type subscriber struct {
	fn     func(domain.IndexChange)
	resync func()
}

// New returns a feed of src; nothing listens until Run.
func New(src Source) *Feed { return &Feed{src: src} }

// Run listens through the source until ctx ends, handing each change and
// each resync to every subscriber (run it in the background, once).
func (f *Feed) Run(ctx context.Context) {
	f.src.ListenIndexChanges(ctx, f.deliver, f.resync)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listening = false
}

// deliver hands c to every subscriber.
func (f *Feed) deliver(c domain.IndexChange) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.subs {
		s.fn(c)
	}
}

// resync tells every subscriber that changes may have been missed.
func (f *Feed) resync() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listening = true
	for _, s := range f.subs {
		s.resync()
	}
}

// Subscribe calls fn with every change from now on, and resync first (at
// once when the feed listens already, else when it starts to) and again
// whenever the connection is made anew, until the returned function is
// called. Neither may call the feed.
func (f *Feed) Subscribe(fn func(domain.IndexChange), resync func()) (stop func()) {
	s := &subscriber{fn: fn, resync: resync}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs = append(f.subs, s)
	if f.listening {
		resync()
	}
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.subs = slices.DeleteFunc(f.subs, func(o *subscriber) bool { return o == s })
	}
}

// ListenIndexChanges subscribes fn and resync until ctx ends: a Feed is a
// change source as its Source is (chunkcache, qdrant.TermStatsCache).
func (f *Feed) ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func()) {
	stop := f.Subscribe(fn, resync)
	defer stop()
	<-ctx.Done()
}
