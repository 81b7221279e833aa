package lru

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The bound evicts the least recently used first: a Get makes an entry
// recent, a Put of a known key replaces it, and the evicted entries are
// reported, those removed or replaced are not.
func TestMapEvictsTheLeastRecentlyUsed(t *testing.T) {
	var evicted []string
	m := New[string, int](10, func(k string, v int) { evicted = append(evicted, k) })
	m.Put("a", 1, 4)
	m.Put("b", 2, 4)
	v, ok := m.Get("a") // a is now the most recent
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	m.Put("c", 3, 4) // 12 > 10: b goes
	assert.Equal(t, []string{"b"}, evicted)
	assert.False(t, m.Contains("b"))
	assert.Equal(t, 2, m.Len())
	assert.EqualValues(t, 8, m.Cost())

	m.Put("a", 9, 2) // replaced, not evicted
	assert.Equal(t, []string{"b"}, evicted)
	v, _ = m.Get("a")
	assert.Equal(t, 9, v)
	assert.EqualValues(t, 6, m.Cost())

	assert.True(t, m.Remove("c"))
	assert.False(t, m.Remove("c"))
	assert.EqualValues(t, 2, m.Cost())

	m.Put("huge", 0, 11) // more than the bound alone: evicted with the rest
	assert.Equal(t, []string{"b", "a", "huge"}, evicted)
	assert.Zero(t, m.Len())
	assert.Zero(t, m.Cost())

	m.Put("x", 1, 1)
	m.Clear()
	assert.Zero(t, m.Len())
	assert.Zero(t, m.Cost())
	_, ok = m.Get("x")
	assert.False(t, ok)
	assert.Equal(t, []string{"b", "a", "huge"}, evicted, "Clear evicts nothing")
}

// Contains does not count as a use.
func TestContainsLeavesTheOrder(t *testing.T) {
	var evicted []string
	m := New[string, int](2, func(k string, _ int) { evicted = append(evicted, k) })
	m.Put("a", 1, 1)
	m.Put("b", 2, 1)
	assert.True(t, m.Contains("a"))
	m.Put("c", 3, 1)
	assert.Equal(t, []string{"a"}, evicted)
}
