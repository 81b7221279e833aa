package qdrant

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
)

func TestNothingListening(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	require.NoError(t, lis.Close())

	start := time.Now()
	_, err = New(context.Background(), Config{URL: addr, Dims: testDims, Timeout: 2 * time.Second})
	requireCode(t, domain.CodeUnavailable, err)
	assert.Less(t, time.Since(start), 3*time.Second)
}

// TestSilentServer: a server that accepts connections and never answers
// (a hung process, a wrong port behind a proxy) costs Timeout, no more.
func TestSilentServer(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = lis.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})

	start := time.Now()
	_, err = New(context.Background(), Config{URL: lis.Addr().String(), Dims: testDims, Timeout: 300 * time.Millisecond})
	requireCode(t, domain.CodeUnavailable, err)
	assert.Less(t, time.Since(start), 2*time.Second)
}

// TestSlowServer: calls that Qdrant does not answer within Timeout fail
// as unavailable.
func TestSlowServer(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "")
	s, err := New(context.Background(), Config{URL: f.Addr(), Dims: testDims, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	f.SetHang(true)

	start := time.Now()
	_, err = s.Search(context.Background(), "t1", query(nil))
	requireCode(t, domain.CodeUnavailable, err)
	requireCode(t, domain.CodeUnavailable, s.Upsert(context.Background(), "t1", []domain.VectorRecord{record(1, nil)}))
	assert.Less(t, time.Since(start), 2*time.Second)

	// The caller's own deadline counts too.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Search(ctx, "t1", query(nil))
	requireCode(t, domain.CodeUnavailable, err)
}

// TestServerGone: once Qdrant is down every operation fails fast as
// unavailable.
func TestServerGone(t *testing.T) {
	e := newEnv(t)
	e.upsert("t1", record(1, nil))
	e.stop()
	ctx := context.Background()

	start := time.Now()
	_, err := e.store.Search(ctx, "t1", query(nil))
	requireCode(t, domain.CodeUnavailable, err)
	requireCode(t, domain.CodeUnavailable, e.store.Upsert(ctx, "t1", []domain.VectorRecord{record(2, nil)}))
	requireCode(t, domain.CodeUnavailable, e.store.DeleteDocument(ctx, "t1", "doc1"))
	requireCode(t, domain.CodeUnavailable, e.store.DeleteKnowledgeBase(ctx, "t1", "kb1"))
	requireCode(t, domain.CodeUnavailable, e.store.EnsureFieldIndex(ctx, "p", FieldKeyword))
	requireCode(t, domain.CodeUnavailable, e.store.EnsureCollection(ctx))
	assert.Less(t, time.Since(start), 5*time.Second)
}
