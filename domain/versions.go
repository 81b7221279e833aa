package domain

import (
	"fmt"
	"math"
	"strconv"
)

// VersionState is where the content versions of a versioned resource (a
// prompt or decomposition template) stand: versions count from 1 to
// Latest; Published is nil until one is published. Its methods are the one
// statement of the publishing rules every such resource follows.
type VersionState struct {
	Latest    int
	Published *int
}

// CheckPublish says whether version may become the published one: it must
// exist, and a rollback must go to a version earlier than the published
// one. Returns CodeValidation naming /version, or CodeInvalidTransition
// for a rollback with nothing published.
func (s VersionState) CheckPublish(version int, rollback bool) error {
	if rollback {
		if s.Published == nil {
			return Errorf(CodeInvalidTransition, "Nothing is published yet, so there is nothing to roll back; publish a version instead.")
		}
		if version >= *s.Published {
			return Invalid("/version", fmt.Sprintf("a rollback goes to a version earlier than the published version %d", *s.Published))
		}
	}
	if version < 1 || version > s.Latest {
		return Invalid("/version", fmt.Sprintf("the template has versions 1 to %d", s.Latest))
	}
	return nil
}

// Pick is the version an operation on "a version" uses: the requested
// one, else the published one, else the latest. A requested version the
// resource does not have is CodeValidation naming /version.
func (s VersionState) Pick(requested *int) (int, error) {
	switch {
	case requested != nil:
		if *requested < 1 || *requested > s.Latest {
			return 0, Invalid("/version", "the template has no such version")
		}
		return *requested, nil
	case s.Published != nil:
		return *s.Published, nil
	}
	return s.Latest, nil
}

// VersionCursor reads the cursor of a version listing (newest first):
// the version the next page lists below, 0 for the first page.
func VersionCursor(p PageRequest) (int, error) {
	if p.After == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(p.After)
	if err != nil || n < 1 || n > math.MaxInt32 { // versions are int32 in the store
		return 0, Errorf(CodeInvalidCursor, "The cursor is not one this service handed out.")
	}
	return n, nil
}

// VersionPage is a page of versions keyed by their number, for
// VersionCursor to read back.
func VersionPage[T any](items []T, p PageRequest, number func(T) int) Page[T] {
	return PageOf(items, p, func(v T) string { return strconv.Itoa(number(v)) })
}
