package qdrant

import (
	"hash/fnv"
	"slices"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/store/lexical"
)

// The lexical half of hybrid search lives in the collection too, so that no
// replica keeps a word index of its own: every point carries a sparse
// vector of its text's terms, which Qdrant scores with its IDF modifier,
// and the list of those terms, whose keyword index counts how many of a
// tenant's chunks hold a term (TermStats).
const (
	// sparseName is the named sparse vector of every point.
	sparseName = "text"
	// keyTerms is the payload key of a point's distinct terms.
	keyTerms = "terms"
	// assumedMeanLength is the chunk length, in terms, that BM25's length
	// normalisation compares a chunk with. BM25 takes the corpus mean,
	// which changes with every write; a constant keeps a point's vector a
	// function of its own text alone, so no write ever re-encodes other
	// points and every replica encodes alike. The chunker's answer-sized
	// units (a sentence, a line or a table row, with the heading path)
	// hold about this many analysed terms.
	assumedMeanLength = 10
)

// termIndex is the sparse index of an analysed term: its 32-bit FNV-1a
// hash, which is fixed by its definition, so that every replica, and every
// version of the service, maps a term to the same index without sharing a
// dictionary. Two terms that collide share a posting list, which costs a
// little ranking precision and nothing else: the candidates are judged on
// their text, and TermStats counts exact terms.
func termIndex(term string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(term))
	return h.Sum32()
}

// sparseVector is a sparse vector with its indices ascending.
type sparseVector struct {
	indices []uint32
	values  []float32
}

// empty reports whether the vector has no element.
func (v sparseVector) empty() bool { return len(v.indices) == 0 }

// documentVector is the sparse vector of a chunk's search text and its
// distinct terms (in order of first occurrence), its words' stems looked
// up in stems (nil: stemmed each time).
//
// A value is the BM25 weight of the term in the chunk,
//
//	tf·(K1+1) / (tf + K1·(1 − B + B·|d|/assumedMeanLength))
//
// with K1 and B those of store/lexical: the collection's IDF modifier
// multiplies it by the term's idf at query time, so a query's score is
// BM25's sum. Raw term frequencies would let a chunk that repeats a word
// ten times score ten times as much for it, and a long chunk outscore
// short ones by holding more words; the saturation caps what one term adds
// at (K1+1)·idf, and the length norm favours the short units that answer.
func documentVector(stems *analysis.Stems, text string) (sparseVector, []string) {
	tokens := stems.Terms(text)
	counts := make(map[string]int, len(tokens))
	var terms []string
	for _, t := range tokens {
		if counts[t] == 0 {
			terms = append(terms, t)
		}
		counts[t]++
	}
	norm := lexical.K1 * (1 - lexical.B + lexical.B*float64(len(tokens))/assumedMeanLength)
	tf := make(map[uint32]float64, len(terms))
	for _, t := range terms {
		tf[termIndex(t)] += float64(counts[t]) // colliding terms add up
	}
	return fromMap(tf, func(n float64) float64 { return n * (lexical.K1 + 1) / (n + norm) }), terms
}

// queryVector is the sparse vector of a question: each of its terms
// weighs how often the question says it (as in store/lexical, a repeated
// term counts again), and each expansion term not among them once.
func queryVector(text string, expand []string) sparseVector {
	tf := map[uint32]float64{}
	seen := map[string]bool{}
	for _, t := range analysis.Terms(text) {
		tf[termIndex(t)]++
		seen[t] = true
	}
	for _, t := range expand {
		if !seen[t] {
			tf[termIndex(t)]++
			seen[t] = true
		}
	}
	return fromMap(tf, func(n float64) float64 { return n })
}

// fromMap turns index → count into a vector of weight(count), indices
// ascending, so that a text always makes the same request.
func fromMap(m map[uint32]float64, weight func(float64) float64) sparseVector {
	v := sparseVector{indices: make([]uint32, 0, len(m)), values: make([]float32, 0, len(m))}
	for i := range m {
		v.indices = append(v.indices, i)
	}
	slices.Sort(v.indices)
	for _, i := range v.indices {
		v.values = append(v.values, float32(weight(m[i])))
	}
	return v
}
