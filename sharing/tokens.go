package sharing

import (
	"crypto/rand"
	"crypto/sha256"
)

// Token prefixes: a share link's ("sh_") and a bound device's ("sd_").
const (
	shareTokenPrefix  = "sh_"
	deviceTokenPrefix = "sd_"
	// tokenBodyLen base62 characters carry log2(62)*43 ≈ 256 random bits.
	tokenBodyLen = 43
	base62       = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// newToken returns prefix and 43 base62 characters drawn uniformly from
// crypto/rand.
func newToken(prefix string) string {
	out := make([]byte, 0, len(prefix)+tokenBodyLen)
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

// hashToken is the SHA-256 of a token: the only form stored. A fast hash
// is right here, as for API keys: a token has 256 random bits, so there is
// nothing for a slow password hash to protect.
func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
