package memindex

import (
	"fmt"
	"math"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/shardmap"
)

// Index is an in-memory vector index for all tenants, one shard per
// tenant, each behind its own RWMutex: searches of a tenant run in
// parallel, writes of one tenant never wait for another's. It is safe for
// concurrent use.
//
// With a code (the default), the float32 vectors, which only rescoring
// reads, live in an unlinked file mapped into memory on Linux (see
// Options.VectorDir), not in the Go heap. Close gives that memory back;
// an Index dropped without Close gives it back when the garbage collector
// finds it unreachable.
//
// All vectors have the same length, fixed by New; an embedding model of
// another length needs another Index. Vectors are normalised on insert, so
// a score is the cosine similarity; a zero vector is kept as is and scores
// 0 against everything.
type Index struct {
	dims  int
	quant Quantization
	// oversample: candidates per requested hit that a code scan keeps for
	// rescoring, and minRescore the least it keeps.
	oversample, minRescore int
	// exactBelow: shards with fewer rows are scanned exactly (a field so
	// that tests can run the code scan on small data).
	exactBelow int
	// rowsPerWorker is the least number of rows a search hands to one
	// goroutine (a field so that tests can exercise the parallel path on
	// small data).
	rowsPerWorker int
	kernels       kernels
	// scanAlone: searches do not share their int4 scans (a field so that
	// the benchmarks can measure what sharing saves).
	scanAlone bool
	// vectorDir and heapVectors: where shards map their vector arenas,
	// or whether they keep them in the heap (Options).
	vectorDir   string
	heapVectors bool

	shards *shardmap.Map[*shard]
}

// Options tune how an Index searches. The zero value is the default.
type Options struct {
	// Quantization is the code a search scans before rescoring its best
	// candidates with the float32 vectors: QuantizeInt4 (the default),
	// QuantizeInt8, QuantizeBinary, or QuantizeNone for an exact scan of
	// every row.
	Quantization Quantization
	// Oversample is how many candidates per requested hit the code scan
	// keeps for exact rescoring (at least 96 in all for int4, 64 for
	// the others); 0 means the default of the code, 8 for int4, 4 for
	// int8 and 64 for binary.
	Oversample int
	// VectorDir is the directory of the files that hold the float32
	// vectors of a quantized index, mapped into memory (os.TempDir() when
	// empty). Each file is unlinked as soon as it is created, so nothing
	// stays in it, even after a crash; it needs room for the vectors (4
	// bytes per dimension and row). A directory on a disk lets the kernel
	// drop the pages of vectors not rescored lately under memory pressure;
	// on a tmpfs they stay in memory (though out of the Go heap). When a
	// file cannot be made there, the tenant's vectors stay in the heap
	// (Memory.MapErr says why). Only Linux maps; elsewhere the vectors are
	// always in the heap.
	VectorDir string
	// HeapVectors keeps the float32 vectors in the Go heap, as an Index of
	// QuantizeNone (which scans them all) always does.
	HeapVectors bool
}

// New returns an empty index of vectors of length dims with the default
// Options. It panics if dims is not positive: that is a programming error,
// not an input.
func New(dims int) *Index { return NewWithOptions(dims, Options{}) }

// NewWithOptions returns an empty index of vectors of length dims searched
// as o says. It panics if dims is not positive or o is invalid.
//
// With a code (QuantizeInt4, QuantizeInt8, QuantizeBinary) every row keeps its float32
// vector and its code: a search of a shard of at least a few thousand rows
// scans the codes of the rows that pass its filters, keeps the best
// Oversample × topK of them, and rescores those with the float32 vectors,
// so every score returned is exact and only the choice of rows can differ
// from an exact scan (recall@10 ≥ 0.99 against it at the defaults, see
// TestQuantizedRecall). Smaller shards are always scanned exactly.
func NewWithOptions(dims int, o Options) *Index {
	if dims <= 0 {
		panic(fmt.Sprintf("memindex: dims must be positive, got %d", dims))
	}
	if o.Quantization > QuantizeNone || o.Oversample < 0 {
		panic(fmt.Sprintf("memindex: invalid options %+v", o))
	}
	oversample, minRescore := defaultOversampleInt8, minRescore
	switch o.Quantization {
	case QuantizeInt4:
		oversample, minRescore = defaultOversampleInt4, minRescoreInt4
	case QuantizeBinary:
		oversample = defaultOversampleBinary
	}
	if o.Oversample != 0 {
		oversample = o.Oversample
	}
	x := &Index{
		dims: dims, quant: o.Quantization, oversample: oversample, minRescore: minRescore, exactBelow: defaultExactBelow,
		rowsPerWorker: defaultRowsPerWorker, kernels: cpuKernels(),
		vectorDir: o.VectorDir, heapVectors: o.HeapVectors || o.Quantization == QuantizeNone,
	}
	x.shards = shardmap.New(func() *shard { return newShard(x.dims, x.quant, newVectorMemory(x.vectorDir, x.heapVectors)) })
	return x
}

// Dims returns the length of the vectors.
func (x *Index) Dims() int { return x.dims }

// lockShard returns the tenant's shard, created if need be, write-locked
// (unlock it after). A shard that Close emptied meanwhile is passed over
// for a new one.
func (x *Index) lockShard(tenant domain.TenantID) *shard {
	for {
		s := x.shards.Get(tenant, true)
		s.mu.Lock()
		if !s.closed {
			return s
		}
		s.mu.Unlock()
	}
}

// Close empties the index and gives back the memory of its vectors,
// unmapping their files; it waits for the searches and writes under way.
// The index is empty after, and may take records again (in new files).
// Close is for an owner that drops the index: the memory of the vectors
// is not the garbage collector's to count, and without Close it comes
// back only when a collection finds the index unreachable.
func (x *Index) Close() {
	for _, s := range x.shards.TakeAll() {
		s.mu.Lock()
		s.close()
		s.mu.Unlock()
	}
}

// Len returns the number of records of tenant.
func (x *Index) Len(tenant domain.TenantID) int {
	s := x.shards.Get(tenant, false)
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.len()
}

// Grow makes room for n more records of tenant, so that a bulk load
// allocates its arena once instead of doubling it along the way.
func (x *Index) Grow(tenant domain.TenantID, n int) {
	if n <= 0 {
		return
	}
	s := x.lockShard(tenant)
	defer s.mu.Unlock()
	s.grow(n)
}

// Upsert inserts recs into tenant's shard, replacing any record with the
// same ChunkID (re-running an ingestion job never duplicates vectors;
// within recs, the last of a ChunkID wins). The vectors and metadata are
// copied. The batch is validated first and applied whole or not at all:
// every record needs a ChunkID, a Model and a finite vector of length
// Dims, its TenantID (if set) must be tenant, and its metadata values must
// be strings, numbers, booleans, times or string arrays. Errors are
// CodeValidation.
//
// The shard is write-locked for the whole batch; a bulk load should come in
// batches of a few thousand so that searches interleave.
func (x *Index) Upsert(tenant domain.TenantID, recs []domain.VectorRecord) error {
	scale, err := x.validate(tenant, recs)
	if err != nil || len(recs) == 0 {
		return err
	}
	s := x.lockShard(tenant)
	defer s.mu.Unlock()
	s.upsert(recs, scale)
	return nil
}

// Validate reports whether Upsert would accept recs, without storing
// them: a store that persists records before indexing them checks first,
// so that it never saves what the index refuses (and would then refuse
// again when loading at the next start).
func (x *Index) Validate(tenant domain.TenantID, recs []domain.VectorRecord) error {
	_, err := x.validate(tenant, recs)
	return err
}

// validate checks recs for Upsert and returns the factors that normalise
// their vectors.
func (x *Index) validate(tenant domain.TenantID, recs []domain.VectorRecord) ([]float32, error) {
	if tenant == "" {
		return nil, domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	scale := make([]float32, len(recs))
	for i := range recs {
		s, err := x.check(tenant, &recs[i])
		if err != nil {
			return nil, domain.Errorf(domain.CodeValidation, "Vector record %d (chunk %q): %s.", i, recs[i].ChunkID, err)
		}
		scale[i] = s
	}
	return scale, nil
}

// check validates one record and returns the factor that normalises its
// vector (1 for a zero vector).
func (x *Index) check(tenant domain.TenantID, rec *domain.VectorRecord) (float32, error) {
	switch {
	case rec.ChunkID == "":
		return 0, fmt.Errorf("the chunk id is missing")
	case rec.Model == "":
		return 0, fmt.Errorf("the model is missing")
	case rec.TenantID != "" && rec.TenantID != tenant:
		return 0, fmt.Errorf("the record belongs to another tenant")
	case len(rec.Vector) != x.dims:
		return 0, fmt.Errorf("the vector has %d dimensions, want %d", len(rec.Vector), x.dims)
	}
	for field, v := range rec.Metadata {
		if err := metafilter.Check(field, v); err != nil {
			return 0, err
		}
	}
	scale, ok := unitScale(rec.Vector)
	if !ok {
		return 0, fmt.Errorf("the vector has a NaN or infinite element")
	}
	return scale, nil
}

// unitScale returns the factor that makes v unit length (1 for a zero
// vector), or false when v has a NaN or infinite element.
func unitScale(v []float32) (float32, bool) {
	n2 := float64(vek32.Dot(v, v))
	if !(n2 >= 1e-30 && n2 <= math.MaxFloat32) {
		// A bad element, or squares that overflow or underflow float32
		// (or a zero vector): sum in float64 to tell which.
		n2 = 0
		for _, f := range v {
			n2 += float64(f) * float64(f)
		}
		if math.IsNaN(n2) || math.IsInf(n2, 0) {
			return 0, false
		}
	}
	scale := 1 / math.Sqrt(n2)
	if n2 == 0 || scale > math.MaxFloat32 {
		return 1, true // zero, or too small to scale: kept as is
	}
	return float32(scale), true
}

// DeleteDocument removes every record of document docID from tenant's
// shard and returns how many it removed.
func (x *Index) DeleteDocument(tenant domain.TenantID, docID string) int {
	return x.shards.With(tenant, func(s *shard) int { return s.removeWhere(func(s *shard) []uint32 { return s.docs }, docID) })
}

// DeleteKnowledgeBase removes every record of knowledge base kbID from
// tenant's shard and returns how many it removed.
func (x *Index) DeleteKnowledgeBase(tenant domain.TenantID, kbID string) int {
	return x.shards.With(tenant, func(s *shard) int { return s.removeWhere(func(s *shard) []uint32 { return s.kbs }, kbID) })
}
