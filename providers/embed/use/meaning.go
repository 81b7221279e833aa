package use

import (
	"sync"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// DefaultCachedSentences bounds a Meaning's cache of sentence vectors:
// about 2 KB each, so 16 MB at most.
const DefaultCachedSentences = 8192

// Meaning is the encoder as a domain.Meaning: it rates English sentences
// against an English question by the cosine of their vectors. The
// knowledge's sentences are encoded once and kept in a bounded cache, so
// a question about sentences already seen costs one encoding (its own).
type Meaning struct {
	enc *Encoder
	max int

	mu   sync.Mutex
	vecs map[string][]float32
}

var _ domain.Meaning = (*Meaning)(nil)

// NewMeaning returns enc as a domain.Meaning keeping up to maxCached
// sentence vectors (DefaultCachedSentences when ≤ 0).
func NewMeaning(enc *Encoder, maxCached int) *Meaning {
	if maxCached <= 0 {
		maxCached = DefaultCachedSentences
	}
	return &Meaning{enc: enc, max: maxCached, vecs: map[string][]float32{}}
}

// Similar implements domain.Meaning: nil unless the question is English
// (the encoder's only language); a sentence in another language rates 0.
func (m *Meaning) Similar(question string, sentences []string) []float32 {
	if analysis.Language(question) != analysis.English {
		return nil
	}
	texts := make([]string, 0, len(sentences)+1)
	texts = append(texts, question)
	for _, s := range sentences {
		if analysis.Language(s) == analysis.English {
			texts = append(texts, s)
		}
	}
	vecs := m.vectors(texts)
	q := vecs[question]
	out := make([]float32, len(sentences))
	for i, s := range sentences {
		if v := vecs[s]; len(q) == Dim && len(v) == Dim {
			out[i] = dot(q, v)
		}
	}
	return out
}

// vectors returns the vector of each text, encoding those the cache
// lacks in one batch and keeping them.
func (m *Meaning) vectors(texts []string) map[string][]float32 {
	got := make(map[string][]float32, len(texts))
	var missing []string
	m.mu.Lock()
	for _, t := range texts {
		if v, ok := m.vecs[t]; ok {
			got[t] = v
		} else if _, dup := got[t]; !dup {
			got[t] = nil
			missing = append(missing, t)
		}
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return got
	}
	// Embed reports no error of its own; a failure leaves the texts unrated.
	vecs, err := m.enc.Embed(missing)
	if err != nil {
		return got
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range missing {
		got[t] = vecs[i]
		if len(m.vecs) >= m.max {
			m.evictOne()
		}
		m.vecs[t] = vecs[i]
	}
	return got
}

// evictOne drops one cached vector (whichever the map yields first): the
// cache bounds memory; what it keeps changes speed, never a rating.
func (m *Meaning) evictOne() {
	for k := range m.vecs {
		delete(m.vecs, k)
		return
	}
}

// dot is the cosine of two unit vectors.
func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
