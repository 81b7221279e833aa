package chunk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// cl100kVocabFile is the vocabulary's name among tiktoken-go-loader's
// embedded files.
const cl100kVocabFile = "cl100k_base.tiktoken"

// Tokenizer counts and cuts text in cl100k_base tokens, the encoding of the
// embedding models the chunks are sized for.
//
// Its vocabulary is tiktoken-go-loader's copy compiled into the binary, so
// creating one never touches the network or the disk. It does not go
// through tiktoken.GetEncoding, whose vocabulary comes from a package-level
// loader that by default downloads it and can only be changed by an
// unsynchronised global setter; and it encodes with its own implementation
// of tiktoken-go's algorithm, about 25 times faster (see bpe.go), which the
// tests hold to tiktoken-go's output.
//
// A Tokenizer is immutable once made and safe for concurrent use by multiple
// goroutines: after NewTokenizer its map and slice are only read. Create one
// per process — loading the vocabulary takes around 100 ms and some
// megabytes — and share it.
type Tokenizer struct {
	// ranks maps each token's bytes to its id; ids are merge priorities.
	ranks map[string]int
	// tokenLen[id] is the byte length of token id, so byte offsets of a
	// token sequence can be found without decoding it.
	tokenLen []int32
}

// NewTokenizer loads cl100k_base from the vocabulary embedded in the binary.
func NewTokenizer() (*Tokenizer, error) {
	// The offline loader reads the embedded file by its base name and has
	// no network code at all, unlike tiktoken-go's default loader.
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(cl100kVocabFile)
	if err != nil {
		return nil, fmt.Errorf("chunk: load cl100k_base vocabulary: %w", err)
	}
	if len(ranks) == 0 {
		return nil, fmt.Errorf("chunk: cl100k_base vocabulary is empty")
	}
	maxID := 0
	for _, id := range ranks {
		maxID = max(maxID, id)
	}
	tokenLen := make([]int32, maxID+1)
	for piece, id := range ranks {
		tokenLen[id] = int32(len(piece))
	}
	return &Tokenizer{ranks: ranks, tokenLen: tokenLen}, nil
}

// Count returns the number of cl100k_base tokens in s, as tiktoken's
// encode_ordinary counts them: "<|endoftext|>" in a document is ordinary
// text, not a special token. Invalid UTF-8 counts as U+FFFD. The one
// deliberate difference from tiktoken is for runs longer than maxPieceBytes.
func (t *Tokenizer) Count(s string) int {
	return len(t.encode(s))
}

// Split cuts s into consecutive pieces of at most maxTokens tokens each, on
// token boundaries that are also UTF-8 character boundaries (between words
// where that does not waste over half a piece), so that
// strings.Join(pieces, "") == s for any valid UTF-8 s (invalid bytes are
// replaced with U+FFFD first). Each piece is counted on its own, as a
// consumer would count it. A piece exceeds maxTokens only when maxTokens is
// below the tokens of a single character (at most 4). Empty s gives no
// pieces; maxTokens below 1 is taken as 1.
func (t *Tokenizer) Split(s string, maxTokens int) []string {
	s = validUTF8(s)
	spans := t.encodeText(s).windows(0, len(s), maxTokens, 0, false)
	pieces := make([]string, len(spans))
	for i, sp := range spans {
		pieces[i] = s[sp.start:sp.end]
	}
	return pieces
}

// encode returns the cl100k_base tokens of s. Text that looks like a
// special token ("<|endoftext|>") is encoded as ordinary text: a document may
// well contain it, and it must neither panic nor become a control token.
func (t *Tokenizer) encode(s string) []int {
	s = validUTF8(s)
	return t.appendTokens(make([]int, 0, len(s)/3+1), s, nil)
}

// validUTF8 replaces invalid UTF-8 in s with U+FFFD, which is what the
// encoder would read it as; byte offsets of tokens then match s.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, string(utf8.RuneError))
}

// clamp returns v bounded to [lo, hi].
func clamp(v, lo, hi int) int {
	return min(max(v, lo), hi)
}
