package seal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSealAndOpen(t *testing.T) {
	old, cur := bytes.Repeat([]byte{1}, KeyBytes), bytes.Repeat([]byte{2}, KeyBytes)
	before, err := New(old)
	require.NoError(t, err)
	k, err := New(cur, old)
	require.NoError(t, err)

	sealed := k.Seal("sk-secret-123456", "llm_configs/acme/chat")
	assert.True(t, strings.HasPrefix(sealed, "sealed:v1:"+KeyID(cur)+":"), sealed)
	assert.NotContains(t, sealed, "sk-secret")
	assert.NotEqual(t, sealed, k.Seal("sk-secret-123456", "llm_configs/acme/chat"), "a fresh nonce each time")
	plain, legacy, err := k.Open(sealed, "llm_configs/acme/chat")
	require.NoError(t, err)
	assert.Equal(t, "sk-secret-123456", plain)
	assert.False(t, legacy)
	assert.True(t, k.Current(sealed))

	_, _, err = k.Open(sealed, "llm_configs/other/chat")
	assert.Error(t, err, "sealed for another record")
	_, _, err = k.Open(sealed[:len(sealed)-2]+"AA", "llm_configs/acme/chat")
	assert.Error(t, err, "altered")

	rotated := before.Seal("sk-old", "c")
	assert.False(t, k.Current(rotated), "sealed with the previous key: due for re-sealing")
	plain, _, err = k.Open(rotated, "c")
	require.NoError(t, err)
	assert.Equal(t, "sk-old", plain)
	_, _, err = before.Open(sealed, "llm_configs/acme/chat")
	assert.ErrorIs(t, err, ErrUnknownKey)

	plain, legacy, err = k.Open("sk-clear-legacy", "c")
	require.NoError(t, err)
	assert.Equal(t, "sk-clear-legacy", plain)
	assert.True(t, legacy)
	assert.False(t, k.Current("sk-clear-legacy"))
	assert.Empty(t, k.Seal("", "c"))
	assert.True(t, k.Current(""))
}

func TestParseKey(t *testing.T) {
	hex := NewKey()
	b, err := ParseKey(hex)
	require.NoError(t, err)
	assert.Len(t, b, KeyBytes)
	_, err = ParseKey("c2hvcnQ=")
	assert.Error(t, err)
	b, err = ParseKey("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=")
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte{1}, KeyBytes), b)
}
