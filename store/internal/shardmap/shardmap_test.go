package shardmap

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

type shard struct{ n int }

func TestAShardIsMadeOnceOnFirstWriteAndFoundAfter(t *testing.T) {
	var made atomic.Int32
	m := New(func() *shard { made.Add(1); return &shard{} })
	assert.Nil(t, m.Get("acme", false), "a read makes nothing")
	var wg sync.WaitGroup
	got := make([]*shard, 16)
	for i := range got {
		wg.Go(func() { got[i] = m.Get("acme", true) })
	}
	wg.Wait()
	assert.EqualValues(t, 1, made.Load(), "one shard however many first writes race")
	for _, s := range got {
		assert.Same(t, got[0], s)
	}
	assert.Same(t, got[0], m.Get("acme", false))
	assert.Nil(t, m.Get("globex", false), "tenants do not share shards")
}

func TestWithAndTakeAll(t *testing.T) {
	m := New(func() *shard { return &shard{} })
	assert.Zero(t, m.With("acme", func(s *shard) int { return 7 }), "no shard, nothing done")
	m.Get("acme", true).n = 3
	assert.Equal(t, 3, m.With("acme", func(s *shard) int { return s.n }))

	all := m.TakeAll()
	assert.Len(t, all, 1)
	assert.Equal(t, 3, all["acme"].n)
	assert.Nil(t, m.Get("acme", false), "the map is empty after")
	assert.NotSame(t, all["acme"], m.Get("acme", true), "and makes a new shard")
}
