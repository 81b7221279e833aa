package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigShareRateLimits(t *testing.T) {
	db := "postgres://u:pw@db:5432/app"
	c, err := Load(envOf(map[string]string{"DATABASE_URL": db}))
	require.NoError(t, err)
	assert.Equal(t, 120, c.ShareRateLimitPerShare)
	assert.Equal(t, 300, c.ShareRateLimitPerAddress)

	c, err = Load(envOf(map[string]string{"DATABASE_URL": db,
		"ASSISTANT_SHARE_RATE_LIMIT_PER_SHARE": "10", "ASSISTANT_SHARE_RATE_LIMIT_PER_ADDRESS": "0"}))
	require.NoError(t, err)
	assert.Equal(t, 10, c.ShareRateLimitPerShare)
	assert.Equal(t, 0, c.ShareRateLimitPerAddress, "0 is unlimited, for a service behind a proxy")

	for _, name := range []string{"ASSISTANT_SHARE_RATE_LIMIT_PER_SHARE", "ASSISTANT_SHARE_RATE_LIMIT_PER_ADDRESS"} {
		_, err = Load(envOf(map[string]string{"DATABASE_URL": db, name: "-1"}))
		require.Error(t, err)
		assert.Contains(t, err.Error(), name)
	}
}
