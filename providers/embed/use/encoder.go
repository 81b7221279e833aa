package use

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ErrNotFetched is returned by Load when the cache folder does not hold
// the weights: Ensure has not run, or could not fetch them. A service
// that gets it keeps its lexical embedder.
var ErrNotFetched = errors.New("use: the encoder's weights are not in the cache; run Ensure (go run ./tools/usefetch) first")

// Encoder embeds English text with Universal Sentence Encoder Lite. It is
// immutable once loaded and safe for concurrent use.
type Encoder struct {
	tok   *Tokenizer
	model *model
	// scratch pools the forward pass's buffers between calls.
	scratch sync.Pool
}

// Load reads the encoder from a cache folder that Ensure filled
// (model.json, its weight shards and vocab.json). It returns an error
// wrapping ErrNotFetched when the folder lacks them.
func Load(dir string) (*Encoder, error) {
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (%s)", ErrNotFetched, dir)
		}
		return nil, fmt.Errorf("use: %w", err)
	}
	tok, err := LoadTokenizer(dir)
	if err != nil {
		return nil, fmt.Errorf("use: %w", err)
	}
	w, err := readWeights(dir)
	if err != nil {
		return nil, fmt.Errorf("use: %w", err)
	}
	m, err := newModel(w)
	if err != nil {
		return nil, fmt.Errorf("use: %w", err)
	}
	if len(tok.pieces) > vocabRows {
		return nil, fmt.Errorf("use: vocabulary has %d pieces, the embedding table %d rows", len(tok.pieces), vocabRows)
	}
	e := &Encoder{tok: tok, model: m}
	e.scratch.New = func() any { return new(scratch) }
	return e, nil
}

// Tokenizer returns the encoder's tokenizer.
func (e *Encoder) Tokenizer() *Tokenizer { return e.tok }

// Dim is the length of the vectors Embed returns.
func (e *Encoder) Dim() int { return Dim }

// Embed returns one unit vector of Dim values per text, in order. Texts
// are read up to MaxTokens pieces; an empty text gets the model's vector
// for no tokens (as it does inside a batch in the reference). The texts
// are encoded together, which is faster per text than one call each.
func (e *Encoder) Embed(texts []string) ([][]float32, error) {
	seqs := make([][]int, len(texts))
	for i, t := range texts {
		ids := e.tok.Encode(t)
		if len(ids) > MaxTokens {
			ids = ids[:MaxTokens]
		}
		seqs[i] = ids
	}
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*Dim)
	for i := range out {
		out[i] = flat[i*Dim : (i+1)*Dim : (i+1)*Dim]
	}
	sc := e.scratch.Get().(*scratch)
	defer e.scratch.Put(sc)
	e.model.forward(seqs, out, sc)
	return out, nil
}
