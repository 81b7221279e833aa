package use

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toyTokenizer has a handful of pieces after the reserved ones.
func toyTokenizer(t *testing.T) *Tokenizer {
	t.Helper()
	vocab := []piece{
		{text: "\ufffd"}, {text: "<s>"}, {text: "</s>"}, {text: "x1"}, {text: "x2"}, {text: "x3"},
		{text: "▁a", score: -1},    // 6
		{text: "b", score: -2},     // 7
		{text: "▁ab", score: -2.5}, // 8
		{text: "▁", score: -3},     // 9
		{text: "c", score: -1},     // 10
		{text: "cc", score: -2},    // 11: ties with c+c
	}
	tok, err := newTokenizer(vocab)
	require.NoError(t, err)
	return tok
}

func TestTokenizerToy(t *testing.T) {
	tok := toyTokenizer(t)
	cases := []struct {
		name string
		in   string
		want []int
	}{
		{"empty text has no piece", "", nil},
		{"the likeliest split wins", "ab", []int{8}},
		{"spaces become word marks", "a a", []int{6, 6}},
		{"equal scores: the candidate starting later wins, as in the reference", "cc", []int{9, 10, 10}},
		{"an unknown character is one piece", "a☃", []int{6, 0}},
		{"a run of unknown characters is one piece", "a☃☃☃b", []int{6, 0, 7}},
		{"NFKC folds compatibility forms first", "ａｂ", []int{8}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tok.Encode(tc.in))
		})
	}
}

// TestTokenizerVocabulary: pieces of the real vocabulary, as the Node
// implementation gives them (TestMatchesNodeReference checks many more).
func TestTokenizerVocabulary(t *testing.T) {
	tok := encoderForTest(t).Tokenizer()
	cases := []struct {
		in   string
		want []int
	}{
		{"When do I get my money back?", []int{439, 64, 16, 81, 69, 406, 163, 54}},
		{"", nil},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, tok.Encode(tc.in))
		})
	}
}
