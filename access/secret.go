package access

import (
	"crypto/rand"
	"crypto/sha256"

	"github.com/cs-assistant/assistant/domain"
)

const (
	secretPrefix = "ak_"
	// secretBodyLen base62 characters carry log2(62)*43 ≈ 256 bits: the
	// 32 random bytes the contract promises.
	secretBodyLen = 43
	// minSecretBodyLen is the shortest body accepted from outside (for
	// ASSISTANT_DEFAULT_API_KEY): 32 base62 characters, about 190 bits.
	minSecretBodyLen = 32
	maxSecretLen     = 100
	// visiblePrefixLen is how much of the secret listings show: "ak_" and
	// 8 characters, about 48 bits, enough to recognise a key, far too few to guess it.
	visiblePrefixLen = len(secretPrefix) + 8
	base62           = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// NewSecret returns a fresh API key secret: "ak_" and a token.
func NewSecret() string { return NewToken(secretPrefix) }

// NewToken returns prefix and 43 base62 characters drawn uniformly from
// crypto/rand (256 random bits): API key secrets, and share links' and
// devices' tokens.
func NewToken(prefix string) string {
	out := make([]byte, 0, len(prefix)+secretBodyLen)
	out = append(out, prefix...)
	var buf [64]byte
	for len(out) < cap(out) {
		_, _ = rand.Read(buf[:]) // crypto/rand.Read never fails (Go 1.24+).
		for _, b := range buf {
			// 248 = 4*62: rejecting bytes above it keeps the draw uniform.
			if b < 248 && len(out) < cap(out) {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// WellFormedSecret reports whether s looks like an API key secret: "ak_"
// and at least 32 base62 characters, at most 100 in all. Checking this
// before hashing keeps junk away from the cache and the database.
func WellFormedSecret(s string) bool {
	if len(s) < len(secretPrefix)+minSecretBodyLen || len(s) > maxSecretLen || s[:len(secretPrefix)] != secretPrefix {
		return false
	}
	for i := len(secretPrefix); i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

// HashSecret is the SHA-256 of the secret: the only form that is stored.
// A fast hash is right here: the secret has 190+ bits of entropy, so there
// is nothing for a slow password hash to protect.
func HashSecret(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

// visiblePrefix is the part of the secret shown in listings.
func visiblePrefix(s string) string { return s[:visiblePrefixLen] }

func newKeyRecord(secret string, k domain.APIKey) domain.NewAPIKey {
	h := HashSecret(secret)
	k.Prefix = visiblePrefix(secret)
	return domain.NewAPIKey{Key: k, SecretHash: h[:]}
}
