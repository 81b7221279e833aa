package domain

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestNewIDIsAPrefixedUUIDv7ThatSortsByTime(t *testing.T) {
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = NewID(PrefixKnowledgeBase)
		time.Sleep(time.Microsecond) // resources are never made faster than this
	}
	for _, id := range ids {
		assert.True(t, ValidID(PrefixKnowledgeBase, id), id)
		assert.Equal(t, byte('7'), id[len(PrefixKnowledgeBase)+12], "version nibble")
		assert.Contains(t, "89ab", string(id[len(PrefixKnowledgeBase)+16]), "variant nibble")
	}
	// Ids made a microsecond or more apart sort in creation order.
	assert.True(t, slices.IsSorted(ids))
	assert.Len(t, slices.Compact(slices.Clone(ids)), len(ids), "unique")
}

func TestValidID(t *testing.T) {
	assert.False(t, ValidID("kb_", "kb_0123"))
	assert.False(t, ValidID("kb_", "doc_0123456789abcdef0123456789abcdef"))
	assert.False(t, ValidID("kb_", "kb_0123456789ABCDEF0123456789abcdef"))
	assert.True(t, ValidID("kb_", "kb_0123456789abcdef0123456789abcdef"))
}

func TestNewIDAfterSortsAfterEvenWhenTheClockIsBehind(t *testing.T) {
	now := NewID(PrefixMessage)
	assert.Greater(t, NewIDAfter(PrefixMessage, now), now)

	// An id from an hour ahead, as if the clock then stepped back.
	ahead := idAt(PrefixMessage, uint64(time.Now().Add(time.Hour).UnixMilli()), 4095)
	next := NewIDAfter(PrefixMessage, ahead)
	assert.Greater(t, next, ahead, "the tick after, not an id of now")
	assert.True(t, ValidID(PrefixMessage, next))
	assert.Equal(t, "7", next[len(PrefixMessage)+12:len(PrefixMessage)+13], "still a version-7 UUID")
	assert.Less(t, next, idAt(PrefixMessage, uint64(time.Now().Add(time.Hour).UnixMilli())+2, 0), "one tick later: the next millisecond")

	for range 1000 {
		a := NewID(PrefixMessage)
		assert.Greater(t, NewIDAfter(PrefixMessage, a), a)
	}
}
