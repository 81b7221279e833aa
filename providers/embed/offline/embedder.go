package offline

import (
	"context"
	"math"
	"sync"

	"github.com/cs-assistant/assistant/domain"
)

// ModelName names the vectors this package makes. The suffix is bumped
// whenever the features, weights or hashing change: vectors of an old
// version must never be compared with new ones, and the vector store only
// compares vectors of the same model.
const ModelName = domain.OfflineEmbeddingModel

// Dims is the length of every vector.
const Dims = 768

// Feature weights. Word bigrams and CJK bigrams carry phrase evidence, so
// they weigh about as much as words; trigrams and single CJK characters
// are many per word and individually weak, so they weigh less.
const (
	weightWord       = 1.0
	weightWordBigram = 0.7
	weightTrigram    = 0.3
	weightCJKChar    = 0.4
	weightCJKBigram  = 1.0
)

// maxPooledSlots bounds the hash table an extractor may keep between
// calls: one huge text must not pin its scratch memory forever.
const maxPooledSlots = 1 << 16

// Embedder is the offline feature-hashing embedder; it implements
// domain.Embedder. It is safe for concurrent use, and its zero value is
// ready to use (but it must not be copied after first use).
type Embedder struct {
	// scratch holds *extractor values: their buffers make Embed
	// allocation-free apart from the returned vectors.
	scratch sync.Pool
}

// New returns an Embedder.
func New() *Embedder { return &Embedder{} }

// Model returns ModelName.
func (*Embedder) Model() string { return ModelName }

// Dims returns Dims.
func (*Embedder) Dims() int { return Dims }

// Embed returns one unit-length vector per text, in order. A text without
// any word or CJK character (empty, or only punctuation) gets the zero
// vector: it is similar to nothing, and the vector store returns no hits
// for a zero query vector. The only error is ctx's, checked between texts.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	// One backing array for all vectors; the three-index slices keep an
	// append to one vector from writing into the next.
	backing := make([]float32, len(texts)*Dims)
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := backing[i*Dims : (i+1)*Dims : (i+1)*Dims]
		e.EmbedInto(v, text)
		out[i] = v
	}
	return out, nil
}

// EmbedInto writes the vector of text into dst, which must have length
// Dims (it panics otherwise, as a programming error). It allocates nothing
// in the steady state.
func (e *Embedder) EmbedInto(dst []float32, text string) {
	if len(dst) != Dims {
		panic("offline: EmbedInto needs a vector of length Dims")
	}
	clear(dst)
	x, _ := e.scratch.Get().(*extractor)
	if x == nil {
		x = &extractor{}
	}
	x.extract(text)
	accumulate(dst, &x.feats)
	if len(x.feats.slots) <= maxPooledSlots {
		e.scratch.Put(x)
	}
	normalize(dst)
}

// accumulate adds each feature into its bucket with its sign and weight.
func accumulate(dst []float32, c *counts) {
	weights := [8]float64{
		featWord:       weightWord,
		featWordBigram: weightWordBigram,
		featTrigram:    weightTrigram,
		featCJKChar:    weightCJKChar,
		featCJKBigram:  weightCJKBigram,
	}
	// tf[n] caches 1+ln(n) for the small counts nearly all features have
	// (0 = not computed yet); math.Log per feature was a fifth of the time.
	var tf [64]float64
	for _, i := range c.used {
		meta := c.slots[i].meta
		w := weights[meta>>metaFeatShift&7]
		if n := meta / metaCountOne; n > 1 {
			// Sublinear tf: a word said ten times is stronger evidence
			// than once, but not ten times stronger.
			if n >= uint32(len(tf)) {
				w *= sublinear(n)
			} else {
				if tf[n] == 0 {
					tf[n] = sublinear(n)
				}
				w *= tf[n]
			}
		}
		// Signed hashing: colliding features cancel out on average
		// instead of all adding up, which keeps inner products unbiased.
		if meta>>metaSignShift&1 != 0 {
			w = -w
		}
		dst[meta&(1<<metaSignShift-1)] += float32(w)
	}
}

// sublinear returns 1+ln(n), rounded to float32 precision: math.Log may
// differ in the last bit between CPU architectures, and the rounding keeps
// the vectors identical across them.
func sublinear(n uint32) float64 {
	return float64(float32(1 + math.Log(float64(n))))
}

// normalize scales v to unit length, leaving a zero vector zero.
func normalize(v []float32) {
	// Products of float32s are exact in float64, so the sum is the same
	// whether or not the compiler fuses multiply and add.
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
