// Package memindex is an in-memory vector index, one shard per tenant,
// without an approximate graph: a search looks at every row that passes
// its metadata filters (applied before scoring, so a selective filter makes
// a search cheaper, never emptier).
//
// By default each row keeps, next to its float32 vector, an int4 code
// (four bits per dimension and a per-row scale). A search of a shard of
// 4,096 rows or more ranks the filtered rows by their codes, keeps the best
// 8 × topK (at least 96), and rescores those with the float32 vectors:
// the scores returned are exact, and the rows found are those of the exact
// scan at least 99% of the time (recall@10 of 1.00 measured on 20k–100k ×
// 768 random vectors and on lexical embeddings; 0.999 already rescoring
// 64 rows). Smaller shards, and an Index of QuantizeNone (the reference),
// are scanned exactly.
//
// Why int4: the scan is bound by the bytes it reads. On one query over 100k
// × 768 rows (2 cores shared with other work), the exact scan reads 307 MB
// and takes ~7 ms (13 ms of CPU); int8 codes (QuantizeInt8, one byte per
// dimension, read by an AVX2 kernel) ~1.6–1.9 ms (3.0–3.6 ms of CPU); int4
// codes ~0.6–1.0 ms (0.9–1.5 ms of CPU): half int8's bytes, their nibbles
// split and multiplied a tile of 256 rows per kernel call (AVX-512 where
// the CPU has it, else AVX2). Reading them is what bounds it: a pass over
// 100k rows takes 0.7 ms from memory (1.0 with AVX2), and 0.36 ms
// (AVX-512) or 0.66 ms (AVX2) from the cache (BenchmarkInt4Pass). So a
// tile keeps its rows' codes in pieces of 4 dimensions, 256 rows' pieces
// side by side (codes_int4.go), and a query reads only the pieces where it
// is not zero: the lexical embedder's questions are zero on 70–80% of
// them, and their pass reads 21–32% of the bytes (0.15–0.25 ms). And
// searches of a shard that run at the same time share their passes
// (together.go): each block of codes is read once for all of them and
// scored for each while it is in the cache.
//
// Sign bits (QuantizeBinary) read the fewest bytes, but find only
// 62% of the exact top 10 rescoring 640 rows, 77% rescoring 2,560, and 27%
// on lexical vectors, whose zeros they cannot represent; reaching 99% takes
// rescoring half the rows.
//
// Memory. The float32 vectors are read only to rescore a search's best
// candidates (96 rows for a top 10), so on Linux a quantized index keeps
// them out of the Go heap, in a file mapped into memory (Options.VectorDir,
// os.TempDir() by default); the codes the scan reads, the ids and the
// metadata stay in the heap. A 768-dimensional row then holds ~481 bytes
// of heap (its int4 code 388, ids, maps and metadata the rest; 865 with
// int8) and 3,072 mapped, against ~3,937 of heap with the vectors in it
// (HeapVectors, or any other system) and ~3,165 exact (QuantizeNone, whose
// scan reads every vector, keeps them in the heap). Rescoring from the
// mapping costs a few microseconds more per search while its pages are
// cached (36 µs against 29 µs for 64 rows, store/hybrid's BenchmarkLoad),
// a disk read per row when the kernel has dropped them. Bytes counts the heap, Memory
// the mapping apart.
//
// A shard's file is created and unlinked at once, sized with its blocks
// reserved (fallocate: a full disk is an error then, never a SIGBUS on a
// later write), mapped shared, and its descriptor closed: the mapping is
// all that holds it, so nothing is left behind, whatever way the process
// ends. Growing maps a larger file, copies the rows and unmaps the old
// one (doubling while small, then a quarter more; a bulk load that calls
// Grow first maps once); a compaction after large deletes maps a smaller
// one. Both run under the shard's write lock, and searches hold the read
// lock while they read the arena, so none reads an unmapped region.
// Close unmaps every shard; an Index dropped without Close is unmapped
// when the garbage collector finds it unreachable. If a file cannot be
// made (a missing directory, a full disk), the shard keeps its vectors in
// the heap, counted by Bytes, and Memory.MapErr says why.
//
// Nothing else is on disk. Its owner (store/hybrid) loads a tenant's
// vectors from PostgreSQL on first use (Grow, then Upsert in batches),
// writes through, bounds the heap tenants hold by Bytes, and closes the
// index of a tenant it evicts.
package memindex
