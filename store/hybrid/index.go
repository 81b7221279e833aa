package hybrid

import (
	"container/list"
	"context"
	"log/slog"
	"sync"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// DefaultMemoryBytes is the bound of Options.MemoryBytes when it is zero:
// 2 GiB of heap, about 1.5 million chunks of 768-dimensional vectors with
// their words (whose float32 vectors take 4.5 GB more in mapped files).
const DefaultMemoryBytes = 2 << 30

// Persistence is where both sides live durably (store/pg implements it).
type Persistence interface {
	domain.MetadataFieldLister
	SaveVectors(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error
	DeleteDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) error
	DeleteKnowledgeBaseVectors(ctx context.Context, tenant domain.TenantID, kbID string) error
	// CountTenantVectors sizes a load's arena.
	CountTenantVectors(ctx context.Context, tenant domain.TenantID) (int, error)
	// StreamTenantVectors and StreamTenantChunks hand over every vector
	// and chunk of a tenant, a batch at a time; fn copies what it keeps.
	StreamTenantVectors(ctx context.Context, tenant domain.TenantID, fn func([]domain.VectorRecord) error) error
	StreamTenantChunks(ctx context.Context, tenant domain.TenantID, fn func([]domain.Chunk) error) error
	LoadDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) ([]domain.VectorRecord, error)
	DocumentChunkTexts(ctx context.Context, tenant domain.TenantID, documentID string) ([]domain.Chunk, error)
}

// ChangeSource delivers the index changes of every replica, this one's
// included, in commit order (store/pg implements it).
type ChangeSource interface {
	// ListenIndexChanges calls fn for each change until ctx ends, and
	// resync each time it starts listening anew: changes sent before
	// then may have been missed.
	ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func())
}

// Options configure an Index.
type Options struct {
	// Dims is the length of every vector.
	Dims int
	// MemoryBytes bounds the resident tenants' estimated heap bytes
	// (DefaultMemoryBytes when zero); their mapped vector files are not
	// counted in it (Stats.MappedBytes).
	MemoryBytes int64
	// Vectors tunes the vector search (memindex's defaults when zero).
	// Its VectorDir is where the loaded tenants' float32 vectors are
	// mapped from (os.TempDir() when empty): the files are unlinked at
	// once and need 3 KiB per 768-dimensional vector of disk.
	Vectors memindex.Options
	// Log receives a line per load and per change that could not be
	// followed (slog.Default when nil).
	Log *slog.Logger
	// Shares, when set, tells each tenant's share of MemoryBytes (see
	// Shares); without it a tenant may take the whole bound.
	Shares Shares
}

// Shares tells how much of the bound each tenant may hold at the others'
// expense: past the bound, the tenants held beyond their share are evicted
// first, and what a tenant holds beyond its share evicts no one (the
// tenants' index memory quota).
type Shares interface {
	// IndexShare returns tenant's share in bytes, 0 for none (the whole
	// bound) or when it cannot tell.
	IndexShare(ctx context.Context, tenant domain.TenantID) int64
}

// Index is the embedded hybrid index: it implements domain.VectorStore
// and domain.LexicalSearcher over the resident tenants, loading them on
// use. It is safe for concurrent use.
type Index struct {
	db    Persistence
	dims  int
	vopts memindex.Options
	// check is an empty vector index that validates writes.
	check  *memindex.Index
	limit  int64
	shares Shares
	log    *slog.Logger

	// base is the context of loads, which outlive the search that started
	// them (others may wait for them); Close ends it and waits.
	base  context.Context
	stop  context.CancelFunc
	loads sync.WaitGroup
	// closing counts the indexes of dropped tenants being closed (their
	// vector files unmapped) in the background; Close waits for them.
	closing sync.WaitGroup

	mu sync.Mutex
	// closed: Close ran; a tenant still in use then is closed by its
	// last release itself, so that nothing joins closing while Close
	// waits for it.
	closed  bool
	tenants map[domain.TenantID]*entry
	// lru holds the loaded tenants, most recently used first.
	lru      list.List
	resident int64
	mapped   int64
	stats    Stats
}

var (
	_ domain.VectorStore     = (*Index)(nil)
	_ domain.LexicalSearcher = (*Index)(nil)
)

// New returns an empty index over db; tenants load on first use.
func New(db Persistence, o Options) *Index {
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = DefaultMemoryBytes
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	base, stop := context.WithCancel(context.Background())
	return &Index{db: db, dims: o.Dims, vopts: o.Vectors, check: memindex.NewWithOptions(o.Dims, o.Vectors),
		limit: o.MemoryBytes, shares: o.Shares, log: o.Log,
		base: base, stop: stop, tenants: make(map[domain.TenantID]*entry)}
}

// Close stops the loads under way and waits for them (searches waiting
// for them fail), drops every tenant, and gives back the memory of their
// vectors (unmapping their files) once the searches and writes still
// using them are done. Use the Index no more after.
func (x *Index) Close() {
	x.stop()
	x.loads.Wait()
	x.mu.Lock()
	for _, t := range x.tenants {
		if t.loaded {
			x.dropLocked(t)
		}
	}
	x.closed = true
	x.mu.Unlock()
	x.closing.Wait()
}

// Stats describe the resident tenants and what residency cost so far.
type Stats struct {
	// Tenants and Bytes are the loaded tenants and their estimated heap
	// bytes, what Options.MemoryBytes bounds.
	Tenants int
	Bytes   int64
	// MappedBytes is the length of the files the loaded tenants' float32
	// vectors are mapped from (not in Bytes): the page cache holds what
	// searches read of them lately, and the kernel may drop it.
	MappedBytes int64
	// Loads and Evictions count tenants loaded and evicted since New.
	Loads, Evictions int
}

// Stats returns the current Stats.
func (x *Index) Stats() Stats {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.stats
	s.Tenants, s.Bytes, s.MappedBytes = x.lru.Len(), x.resident, x.mapped
	return s
}
