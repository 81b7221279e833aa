package use

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// wordStart is SentencePiece's mark for a space (U+2581), which begins
// every word-initial piece.
const wordStart = '\u2581'

// reservedPieces is how many leading vocabulary entries are control
// symbols (unknown, <s>, </s>, extra ids) that never match text.
const reservedPieces = 6

// unknownID is the vocabulary id of the unknown piece.
const unknownID = 0

// Tokenizer splits text into the encoder's SentencePiece unigram pieces
// with the vocabulary's scores, exactly as @energetic-ai/embeddings 0.2.0
// (the tfjs-models USE tokenizer) does, including its quirks: NFKC, only
// ASCII spaces become word marks, an unknown character is one piece of
// score 0, and runs of unknown pieces collapse into one. It is safe for
// concurrent use.
type Tokenizer struct {
	pieces []piece
	root   *trieNode
}

// piece is one vocabulary entry.
type piece struct {
	text  string
	score float64
	// back is how far the reference's Viterbi back-trace steps for this
	// piece: its length in UTF-16 code units (JavaScript's .length), which
	// differs from its rune count only for characters beyond the BMP.
	back int
}

// trieNode is a node of the prefix tree over the pieces' runes.
type trieNode struct {
	children map[rune]*trieNode
	id       int // vocabulary id of the piece ending here, or -1
	runes    int // length in runes of that piece
}

// LoadTokenizer reads the vocabulary (vocab.json: [[piece, score], ...])
// from the cache folder dir.
func LoadTokenizer(dir string) (*Tokenizer, error) {
	raw, err := os.ReadFile(dir + string(os.PathSeparator) + "vocab.json")
	if err != nil {
		return nil, err
	}
	var entries [][2]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("vocab.json: %w", err)
	}
	vocab := make([]piece, len(entries))
	for i, e := range entries {
		if err := json.Unmarshal(e[0], &vocab[i].text); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
		if err := json.Unmarshal(e[1], &vocab[i].score); err != nil {
			return nil, fmt.Errorf("vocab.json entry %d: %w", i, err)
		}
	}
	return newTokenizer(vocab)
}

// newTokenizer builds the prefix tree over vocab's non-reserved pieces.
func newTokenizer(vocab []piece) (*Tokenizer, error) {
	if len(vocab) <= reservedPieces {
		return nil, fmt.Errorf("vocabulary has %d pieces", len(vocab))
	}
	t := &Tokenizer{pieces: vocab, root: newTrieNode()}
	for i := range vocab {
		vocab[i].back = len(utf16.Encode([]rune(vocab[i].text)))
	}
	for i := reservedPieces; i < len(vocab); i++ {
		node, n := t.root, 0
		for _, r := range vocab[i].text {
			child := node.children[r]
			if child == nil {
				child = newTrieNode()
				node.children[r] = child
			}
			node = child
			n++
		}
		if n > 0 {
			// A later duplicate overwrites an earlier one, as in the reference.
			node.id, node.runes = i, n
		}
	}
	return t, nil
}

// newTrieNode returns an empty node.
func newTrieNode() *trieNode {
	return &trieNode{children: make(map[rune]*trieNode), id: -1}
}

// normalize applies the reference's input processing: NFKC, and a word
// mark before the text and in place of each ASCII space.
func normalize(s string) []rune {
	s = norm.NFKC.String(s)
	if s == "" {
		return nil
	}
	return []rune(string(wordStart) + strings.ReplaceAll(s, " ", string(wordStart)))
}

// Encode returns the vocabulary ids of text's pieces (none for "").
func (t *Tokenizer) Encode(text string) []int {
	symbols := normalize(text)
	n := len(symbols)
	if n == 0 {
		return nil
	}
	// The reference's lattice: for each end position, the candidates in
	// increasing start order (the order they are found in here), the last
	// of equal scores winning (score >= best), and a best of 0 meaning
	// "unset" even once a score of 0 was reached.
	type cand struct{ id, runes int }
	ends := make([][]cand, n+1)
	for i := range n {
		matched := false
		for node, j := t.root.children[symbols[i]], i; node != nil; {
			if node.id >= 0 {
				ends[i+node.runes] = append(ends[i+node.runes], cand{node.id, node.runes})
				matched = true
			}
			if j++; j >= n {
				break
			}
			node = node.children[symbols[j]]
		}
		if !matched {
			ends[i+1] = append(ends[i+1], cand{unknownID, 1})
		}
	}
	best := make([]float64, n+1)
	words := make([]int, n+1)
	for end := 0; end <= n; end++ {
		for _, c := range ends[end] {
			score := t.score(c.id) + best[end-c.runes]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = c.id
			}
		}
	}
	var ids []int
	for i := len(words) - 1; i > 0; i -= t.pieces[words[i]].back {
		ids = append(ids, words[i])
	}
	// Collapse runs of unknown pieces; ids is still back to front here, as
	// in the reference, which makes no difference to a run.
	merged := ids[:0]
	prevUnknown := false
	for _, id := range ids {
		if !(prevUnknown && id == unknownID) {
			merged = append(merged, id)
		}
		prevUnknown = id == unknownID
	}
	for i, j := 0, len(merged)-1; i < j; i, j = i+1, j-1 {
		merged[i], merged[j] = merged[j], merged[i]
	}
	return merged
}

// score is the piece's log-probability; the unknown piece scores 0.
func (t *Tokenizer) score(id int) float64 {
	if id == unknownID {
		return 0
	}
	return t.pieces[id].score
}
