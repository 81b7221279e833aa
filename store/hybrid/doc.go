// Package hybrid is the embedded search index: each tenant's vectors
// (store/vector/memindex) and words (store/lexical, BM25) in memory,
// persisted in PostgreSQL, kept by one owner that loads them, bounds them
// and keeps them current. It is the default, single-machine search state;
// with QDRANT_URL the search state lives in Qdrant instead.
//
// One package owns both sides because everything that keeps them right is
// shared: a tenant is resident with both or with neither, a change re-reads
// a document's vectors and chunks together, and the memory bound counts
// both. It replaces the vector-only store/vector/embedded and the
// write-through store/vector/withlexical, which loaded every tenant at
// start and left following other replicas to cmd/assistant.
//
// Residency. A tenant's index is loaded on its first use (a search, a
// term lookup) from PostgreSQL, its vectors and its chunks in two
// streaming queries run side by side; the searches that arrive during a
// load wait for that one load. Resident tenants are kept within
// Options.MemoryBytes, counted by the indexes' own estimates of the heap
// they hold (Bytes; the mapped vector files are not in it, see below):
// past it, the least recently used tenants are evicted, and load again on
// their next use. A tenant in use is never evicted, and the most recently
// used one stays even when it alone is past the bound. With Options.Shares
// (the tenants' index memory quota) a tenant held beyond its share is
// evicted before any other, and what it holds beyond its share evicts no
// one: one tenant's loading takes the others' room for its share at most.
// Writes to a tenant that is not resident only reach PostgreSQL: it loads
// fresh when used. EstimateBytes tells a tenant's size without loading it.
//
// Following changes. Every write of chunks, vectors, documents and
// knowledge bases announces a domain.IndexChange when it commits (store/pg:
// document deletes, chunk replacement at indexing, vector saves), and every
// replica, this one included, applies it to a resident tenant: it reads the
// document's vectors and chunks again, or forgets the document or knowledge
// base. A change for a tenant that is not resident is ignored; one for a
// tenant being loaded is applied when the load is done. Writes made through
// this Index also reach its memory at once, so a replica reads its own
// writes without waiting for its announcement. Announcements sent while no
// connection listened are lost: each new connection resyncs (every
// resident tenant is dropped and loads again on use).
//
// Memory and load time (BenchmarkLoad, one tenant of 1M chunks of 30
// words with 768-dimensional vectors, 2 shared cores). The float32
// vectors, which a search reads only to rescore its best candidates (96
// for a top 10), are in files mapped into memory (memindex,
// Options.Vectors.VectorDir), out of the Go heap. With the int8 codes a
// vector held 862 bytes of heap (its code 772, ids and maps the rest) and
// 3,072 mapped, and a chunk with its words 1,397 of heap by the estimate
// (the heap measured 1,434), against 3,934 and 4,469 with the vectors in
// the heap; the int4 codes, now the default, take 384 bytes less. Options.MemoryBytes bounds the
// heap; Stats.MappedBytes counts the files apart, whose pages the kernel
// caches while searches read them and may drop (a directory on a disk,
// not a tmpfs, lets it). Rescoring from the mapping takes 36 µs rather
// than 29 µs a search while its pages are cached (from PostgreSQL, 1.2
// ms; rescore_linux_test.go). The vectors load as fast into the mapping
// as into the heap (15.5 s and 15.8 s in one run, of which reading and
// decoding them 7 s); the whole tenant took 18 s in that run. An evicted
// tenant's files are unmapped once no search or write uses it.
package hybrid
