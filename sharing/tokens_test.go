package sharing

import (
	"crypto/sha256"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTokenIsPrefixedBase62AndUnique(t *testing.T) {
	shape := map[string]*regexp.Regexp{
		shareTokenPrefix:  regexp.MustCompile(`^sh_[0-9A-Za-z]{43}$`),
		deviceTokenPrefix: regexp.MustCompile(`^sd_[0-9A-Za-z]{43}$`),
	}
	seen := map[string]bool{}
	for prefix, re := range shape {
		for range 2000 {
			tok := newToken(prefix)
			require.Regexp(t, re, tok)
			require.False(t, seen[tok], "token drawn twice: %s", tok)
			seen[tok] = true
		}
	}
}

func TestHashTokenIsSHA256(t *testing.T) {
	tok := newToken(shareTokenPrefix)
	want := sha256.Sum256([]byte(tok))
	assert.Equal(t, want[:], hashToken(tok))
	assert.NotEqual(t, hashToken(tok), hashToken(tok+"x"))
}
