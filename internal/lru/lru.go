// Package lru is the least-recently-used map behind the service's
// memory-bounded caches (the chunks answers quote, retrieval's term
// sets): entries with a cost, the least recently used evicted first once
// the costs pass a bound.
//
// A Map is not safe for concurrent use: its users hold their own lock,
// which usually guards more than the map.
package lru

import "container/list"

// Map maps keys to values, ordered by use, with the sum of the entries'
// costs bounded. The zero value is not usable: call New.
type Map[K comparable, V any] struct {
	max     int64
	cost    int64
	order   list.List // of *entry[K, V], most recently used first
	index   map[K]*list.Element
	onEvict func(K, V)
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	cost int64
}

// New returns an empty Map whose entries' costs add up to at most max.
// onEvict, when not nil, is called with each entry the bound evicts (not
// with those Remove, Clear or a Put of the same key replace).
func New[K comparable, V any](max int64, onEvict func(K, V)) *Map[K, V] {
	return &Map[K, V]{max: max, index: map[K]*list.Element{}, onEvict: onEvict}
}

// Get returns the value of k, and marks it the most recently used.
func (m *Map[K, V]) Get(k K) (V, bool) {
	e, ok := m.index[k]
	if !ok {
		var zero V
		return zero, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*entry[K, V]).val, true
}

// Contains reports whether k has a value, without marking it used.
func (m *Map[K, V]) Contains(k K) bool {
	_, ok := m.index[k]
	return ok
}

// Put sets the value of k at cost, the most recently used, and evicts the
// least recently used entries while the costs pass the bound (an entry
// that alone costs more than the bound is evicted at once).
func (m *Map[K, V]) Put(k K, v V, cost int64) {
	m.Remove(k)
	m.index[k] = m.order.PushFront(&entry[K, V]{key: k, val: v, cost: cost})
	m.cost += cost
	for m.cost > m.max && m.order.Len() > 0 {
		ev := m.remove(m.order.Back())
		if m.onEvict != nil {
			m.onEvict(ev.key, ev.val)
		}
	}
}

// Remove deletes k's entry, reporting whether there was one.
func (m *Map[K, V]) Remove(k K) bool {
	e, ok := m.index[k]
	if ok {
		m.remove(e)
	}
	return ok
}

func (m *Map[K, V]) remove(e *list.Element) *entry[K, V] {
	ev := m.order.Remove(e).(*entry[K, V])
	delete(m.index, ev.key)
	m.cost -= ev.cost
	return ev
}

// Clear deletes every entry.
func (m *Map[K, V]) Clear() {
	m.order.Init()
	clear(m.index)
	m.cost = 0
}

// Len is the number of entries.
func (m *Map[K, V]) Len() int { return m.order.Len() }

// Cost is the sum of the entries' costs.
func (m *Map[K, V]) Cost() int64 { return m.cost }
