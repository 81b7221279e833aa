// Package seal encrypts the secrets the service must keep readable, such
// as provider API keys, before they are stored: AES-256-GCM under the
// operator's key (ASSISTANT_SECRET_KEY), with the key's id in the sealed
// value so that a key can be rotated.
//
// A sealed value reads "sealed:v1:<key id>:<base64 of nonce and
// ciphertext>". The key id is the first 8 hex digits of the key's
// SHA-256, so it names a key without revealing it. Rotation: the new key
// becomes ASSISTANT_SECRET_KEY and the old one ASSISTANT_SECRET_KEY_PREVIOUS;
// values sealed with either open, and the service re-seals every stored
// value with the current key at start (Keyring.Current tells which are
// due), after which the previous key may be dropped.
//
// Each value is sealed for a context (e.g. "llm_configs/acme/chat"),
// authenticated but not stored, so a sealed value copied to another row
// does not open there.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// prefix starts every sealed value; a stored value without it is a legacy
// clear value (from before sealing).
const prefix = "sealed:v1:"

// KeyBytes is the length of a key: AES-256.
const KeyBytes = 32

// ErrUnknownKey is returned for a value sealed with a key the keyring does
// not hold (a previous key dropped too early, or another installation's).
var ErrUnknownKey = errors.New("the value was sealed with a key that is not configured (ASSISTANT_SECRET_KEY, ASSISTANT_SECRET_KEY_PREVIOUS)")

// Keyring seals with its current key and opens with the current or a
// previous one.
type Keyring struct {
	current string // key id
	aeads   map[string]cipher.AEAD
}

// ParseKey reads a key as the operator writes it: 64 hex digits or the
// standard (or URL-safe) base64 of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeyBytes {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeyBytes {
			return b, nil
		}
	}
	return nil, fmt.Errorf("want 32 random bytes as 64 hex digits or base64 (e.g. `openssl rand -hex 32`)")
}

// NewKey makes a random key, hex encoded as ParseKey reads it.
func NewKey() string {
	b := make([]byte, KeyBytes)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}

// KeyID names a key in sealed values.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:4])
}

// New returns a keyring sealing with current and opening with current and
// every previous key.
func New(current []byte, previous ...[]byte) (*Keyring, error) {
	k := &Keyring{aeads: map[string]cipher.AEAD{}}
	for i, key := range append([][]byte{current}, previous...) {
		if len(key) != KeyBytes {
			return nil, fmt.Errorf("a key must be %d bytes, got %d", KeyBytes, len(key))
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		id := KeyID(key)
		if i == 0 {
			k.current = id
		}
		if _, dup := k.aeads[id]; !dup {
			k.aeads[id] = aead
		}
	}
	return k, nil
}

// Seal encrypts plain for context. "" stays "" (no secret to keep).
func (k *Keyring) Seal(plain, context string) string {
	if plain == "" {
		return ""
	}
	aead := k.aeads[k.current]
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	out := aead.Seal(nonce, nonce, []byte(plain), []byte(context))
	return prefix + k.current + ":" + base64.RawStdEncoding.EncodeToString(out)
}

// Open decrypts a value Seal made for context. A value that is not sealed
// (legacy, stored in clear before sealing) is returned as it is, with
// legacy true. It returns ErrUnknownKey for a key it does not hold, and an
// error for a value that was altered or sealed for another context.
func (k *Keyring) Open(stored, context string) (plain string, legacy bool, err error) {
	if stored == "" {
		return "", false, nil
	}
	rest, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return stored, true, nil
	}
	id, data, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false, errors.New("a sealed value is malformed")
	}
	aead, ok := k.aeads[id]
	if !ok {
		return "", false, ErrUnknownKey
	}
	raw, err := base64.RawStdEncoding.DecodeString(data)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", false, errors.New("a sealed value is malformed")
	}
	out, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(context))
	if err != nil {
		return "", false, errors.New("a sealed value does not open: altered, or sealed for another record")
	}
	return string(out), false, nil
}

// Current reports whether stored is "" or sealed with the current key:
// what needs no re-sealing.
func (k *Keyring) Current(stored string) bool {
	return stored == "" || strings.HasPrefix(stored, prefix+k.current+":")
}
