package pg

import (
	"github.com/cs-assistant/assistant/domain"
)

// versionLock is a versioned resource's row (a prompt or decomposition
// template) as a write holds it locked: where its content versions stand
// and its optimistic-concurrency counter.
type versionLock struct {
	state   domain.VersionState
	version int32
}

// newVersionLock reads a locked row's columns.
func newVersionLock(latest int32, published *int32, version int32) versionLock {
	l := versionLock{state: domain.VersionState{Latest: int(latest)}, version: version}
	if published != nil {
		p := int(*published)
		l.state.Published = &p
	}
	return l
}

// versioned is the one implementation of the writes every versioned
// resource shares, over one transaction: the functions are its queries,
// bound to the resource.
type versioned[C any] struct {
	// lock locks the resource's row (FOR UPDATE) and reads it.
	lock func() (versionLock, error)
	// latest reads the latest version's content.
	latest func() (C, error)
	// insert stores content c as version n.
	insert func(n int32, c C) error
	equal  func(a, b C) bool
}

// save checks that want is the resource's current optimistic-concurrency
// version and stores c as a new version when it differs from the latest
// one. It returns the latest version number after the save, which the
// caller writes to the row with the other fields. The lock makes
// concurrent saves number their versions one after the other.
func (v versioned[C]) save(want int32, c C) (int32, error) {
	l, err := v.lock()
	if err != nil {
		return 0, err
	}
	if l.version != want {
		return 0, staleVersion()
	}
	cur, err := v.latest()
	if err != nil {
		return 0, err
	}
	latest := int32(l.state.Latest)
	if !v.equal(cur, c) {
		latest++
		if err := v.insert(latest, c); err != nil {
			return 0, err
		}
	}
	return latest, nil
}

// checkPublish locks the resource and checks that version may become its
// published one (domain.VersionState.CheckPublish).
func (v versioned[C]) checkPublish(version int, rollback bool) error {
	l, err := v.lock()
	if err != nil {
		return err
	}
	return l.state.CheckPublish(version, rollback)
}
