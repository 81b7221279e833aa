package remote

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMaskKey(t *testing.T) {
	cases := map[string]string{
		"":                                "",
		"short":                           "…",
		"sk-proj-Abc123def456ghi789abcd":  "sk-…abcd",
		testKey:                           "sk-…abcd",
		"0123456789abcdefwxyz":            "…wxyz",
		"verylongprefix-0123456789abwxyz": "…wxyz",
	}
	for in, want := range cases {
		got := MaskKey(in)
		assert.Equal(t, want, got, in)
		assert.LessOrEqual(t, len(got), 32)
	}
}
