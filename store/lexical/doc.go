// Package lexical is an in-memory BM25 index of chunk texts, one shard per
// tenant: the lexical sibling of the vector index (store/vector/memindex).
// Vector search finds paraphrases; this finds the exact words a customer
// typed — product codes, error numbers, names — that an embedding blurs.
// A hybrid search runs both and fuses the rankings.
//
// Text is cut into terms by package analysis, the one analysis of every
// lexical part of the service (stemmed words without stop words, CJK
// characters and pairs), so the index, sentence selection and the
// answerability check agree on what a term is.
//
// Scores are Okapi BM25 with k1 = 1.2 and b = 0.75 over the tenant's
// statistics (number of chunks, mean length, document frequencies), which
// are kept up to date on every upsert and delete. Only chunks holding at
// least one query term are scored, from per-term posting lists, and of
// those only the ones that may enter the top k: a search goes over the
// lists a window of slots at a time and skips the others by MaxScore (see
// maxscore.go), returning exactly what scoring them all would.
//
// It keeps nothing on disk: its owner (store/hybrid) loads a tenant on
// first use, writes through, and bounds the memory tenants hold by Bytes.
package lexical
