package qdrant

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]endpoint{
		"http://qdrant:6334":    {host: "qdrant", port: 6334},
		"http://qdrant:7000/":   {host: "qdrant", port: 7000},
		"https://q.example:443": {host: "q.example", port: 443, tls: true},
		"qdrant:6334":           {host: "qdrant", port: 6334},
		"qdrant":                {host: "qdrant", port: 6334},
		"http://qdrant":         {host: "qdrant", port: 6334},
		" 127.0.0.1:1234 ":      {host: "127.0.0.1", port: 1234},
		"[::1]:6334":            {host: "::1", port: 6334},
		"http://[::1]":          {host: "::1", port: 6334},
	} {
		got, err := parseURL(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{"", "ftp://qdrant", "http://qdrant:6334/collections", "qdrant:0", "qdrant:x", "http://:6334"} {
		_, err := parseURL(raw)
		assert.Error(t, err, raw)
	}
}

func TestConfigDefaults(t *testing.T) {
	c, _, err := Config{URL: "qdrant", Dims: 768}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, DefaultCollection, c.Collection)
	assert.Equal(t, DefaultTimeout, c.Timeout)
}

func TestPointID(t *testing.T) {
	assert.Equal(t, "0123abcd-0000-4000-8000-00000000beef", PointID("chk_0123abcd000040008000"+"00000000beef"))
	assert.Equal(t, PointID("chk_0123abcd00004000800000000000beef"), PointID("chk_0123ABCD00004000800000000000BEEF"), "hex case does not matter")
	// Other ids hash to a stable UUID of their own.
	for _, id := range []string{"c1", "chk_short", "chk_zz23abcd00004000800000000000beef", ""} {
		got := PointID(id)
		assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, got, id)
		assert.Equal(t, got, PointID(id), id)
	}
	assert.NotEqual(t, PointID("c1"), PointID("c2"))
}

func TestMetaKey(t *testing.T) {
	assert.Equal(t, "m_product", metaKey("product"))
	assert.Equal(t, "m_Product_2", metaKey("Product_2"))
	assert.Equal(t, "mx_612e62", metaKey("a.b"))
	assert.Equal(t, "mx_615b5d", metaKey("a[]"))
	// A hex-looking plain key cannot collide with an encoded one.
	assert.NotEqual(t, metaKey("x612e62"), metaKey("a.b"))
}

func TestFormatTime(t *testing.T) {
	ts := time.Date(2024, 3, 4, 5, 6, 7, 123456789, time.FixedZone("x", 3600))
	assert.Equal(t, "2024-03-04T04:06:07.123456Z", formatTime(ts))
	assert.Equal(t, "2024-03-04T04:06:07Z", formatTime(time.Date(2024, 3, 4, 4, 6, 7, 0, time.UTC)))
}
