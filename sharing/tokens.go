package sharing

import (
	"github.com/cs-assistant/assistant/access"
)

// Token prefixes: a share link's ("sh_") and a bound device's ("sd_").
const (
	shareTokenPrefix  = "sh_"
	deviceTokenPrefix = "sd_"
)

// newToken returns prefix and 43 base62 characters, 256 random bits: a
// token made as API key secrets are.
func newToken(prefix string) string { return access.NewToken(prefix) }

// hashToken is the SHA-256 of a token: the only form stored. A fast hash
// is right here, as for API keys: a token has 256 random bits, so there is
// nothing for a slow password hash to protect.
func hashToken(token string) []byte {
	h := access.HashSecret(token)
	return h[:]
}
