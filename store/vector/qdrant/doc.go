// Package qdrant implements domain.VectorStore over a Qdrant server
// (gRPC, github.com/qdrant/go-client).
//
// All tenants share one collection of Dims-dimensional cosine vectors.
// Tenants are kept apart by payload, not by collection: tenant_id has a
// keyword index marked is_tenant (Qdrant lays the data out per tenant) and
// the collection's HNSW graph is built per tenant (m=0, payload_m=16), the
// layout Qdrant recommends for many tenants in one collection. Every
// search and delete carries tenant_id (and a search model) as top-level
// must conditions; nothing in this package builds a request without them.
//
// # Points
//
// A point's id is the chunk id's 32 hex digits read as a UUID ("chk_"+32
// hex, see PointID), so re-upserting a chunk replaces its point. Its
// payload holds tenant_id, kb_id, document_id, chunk_id, model, created_at
// and each metadata field under "m_<key>" (or "mx_<hex of key>" for a key
// that is not plain letters, digits and underscores, which Qdrant would
// read as a JSON path), so metadata never collides with our own keys.
// Times are RFC 3339 strings in UTC to the microsecond, which Qdrant's
// datetime conditions and index read.
//
// # Words, and hybrid search
//
// The lexical side of retrieval lives in the collection too, so that a
// replica keeps no search state of its own: every point has a sparse
// vector "text" of its text's analysed terms (package analysis, as the
// embedded BM25 index), indexed by the terms' FNV-1a hashes and weighted
// by BM25's saturation against a fixed mean length, which the collection's
// IDF modifier turns into BM25 at query time (sparse.go), and a keyword
// payload "terms" whose counts give the per-tenant idf of TermStats.
// TermStatsCache keeps those counts per tenant until the tenant's
// documents change, as every replica announces (Announced announces
// Qdrant's own writes, once done).
// SearchWords searches the sparse vectors; SearchHybrid fuses the dense
// and the sparse lists by RRF in one Query API request and scores the
// fused candidates by their cosine, which the retriever calibrates as with
// the embedded store (hybrid.go says why). A collection made before the
// sparse vector is refused: Qdrant cannot add one, so the documents are
// indexed into a new collection (QDRANT_COLLECTION, assistant reindex
// --all). A change of the analysis needs the same.
//
// # Sharding
//
// A collection is auto-sharded (Qdrant spreads points by id) or tiered
// (Config.Sharding): user-sharded, with every request naming the tenant's
// own shard key and the shared key "_shared" as fallback, so that a large
// tenant can be promoted to its own key (PromoteTenant, then
// FinishPromotion) without any replica knowing. Qdrant weighs words by
// their idf within the shard searched, so a promoted tenant's words weigh
// by its own knowledge alone.
//
// # Filters
//
// domain.Filter is translated as follows (k is the field's payload key):
//
//	eq  string / bool   must: match k = v (keyword / boolean)
//	eq  number          must: range k ≥ v and ≤ v (Qdrant has no float match)
//	eq  time            must: datetime_range k ≥ t and ≤ t
//	in  strings         must: match k any of vs (keywords)
//	in  numbers         should: one range k = v per value
//	ne  / nin           must_not: the condition of eq / in
//	gt gte lt lte       range (number) or datetime_range (time)
//	And                 must: the parts (flattened where they have no should)
//	Or                  nested filter: should: the parts
//
// A string array matches match / match-any when any element does, which is
// Qdrant's own rule, and a must_not holds for a point without the field,
// so ne and nin match points that lack it while eq, in and ranges don't:
// the semantics of domain.Filter and of store/vector/memindex. An in with
// an empty list matches nothing and a nin with one everything; such parts
// are folded away before the request is built (a filter that can match
// nothing returns no hits without asking Qdrant).
//
// What Qdrant cannot express exactly: it compares a datetime condition
// with any string that parses as a date and a keyword condition with the
// string form of a stored time, where memindex keeps strings and times
// apart. A field holds one type (its metadata definition says which), so
// this only shows if a field's type changes while old chunks keep values
// of the old one. Two smaller differences from memindex: an infinite
// metadata number is refused on upsert (payloads are JSON, which has no
// infinity), and an empty tenant is an error for Search too (memindex
// answers it with no hits).
package qdrant
