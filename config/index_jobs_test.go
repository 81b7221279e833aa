package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigIndexJobsPerTenant(t *testing.T) {
	db := "postgres://u:pw@db:5432/app"
	for _, c := range []struct {
		name          string
		workers, want string
		perTenant     int
	}{
		{"one worker stays free for the other tenants", "4", "", 3},
		{"the default of two workers leaves one free", "", "", 1},
		{"a single worker is shared", "1", "", 1},
		{"the operator's cap", "4", "2", 2},
		{"0 is no cap", "4", "0", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(envOf(map[string]string{"DATABASE_URL": db,
				"ASSISTANT_INDEX_WORKERS": c.workers, "ASSISTANT_INDEX_JOBS_PER_TENANT": c.want}))
			require.NoError(t, err)
			assert.Equal(t, c.perTenant, cfg.IndexJobsPerTenant)
		})
	}
	for _, bad := range []string{"-1", "many", "1001"} {
		_, err := Load(envOf(map[string]string{"DATABASE_URL": db, "ASSISTANT_INDEX_JOBS_PER_TENANT": bad}))
		require.Error(t, err, bad)
		assert.Regexp(t, "^ASSISTANT_INDEX_JOBS_PER_TENANT: ", err.Error())
	}
}

func TestConfigIndexProviderBounds(t *testing.T) {
	db := "postgres://u:pw@db:5432/app"
	c, err := Load(envOf(map[string]string{"DATABASE_URL": db}))
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, c.IndexProviderTimeout)
	assert.Equal(t, 2, c.IndexProviderRetries)

	c, err = Load(envOf(map[string]string{"DATABASE_URL": db,
		"ASSISTANT_INDEX_PROVIDER_TIMEOUT": "5s", "ASSISTANT_INDEX_PROVIDER_RETRIES": "0"}))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, c.IndexProviderTimeout)
	assert.Equal(t, 0, c.IndexProviderRetries, "0: no retry within an attempt; the job's own retries remain")

	for name, bad := range map[string][]string{
		"ASSISTANT_INDEX_PROVIDER_TIMEOUT": {"soon", "0", "10ms", "-1s"},
		"ASSISTANT_INDEX_PROVIDER_RETRIES": {"-1", "11", "two"},
	} {
		for _, v := range bad {
			_, err := Load(envOf(map[string]string{"DATABASE_URL": db, name: v}))
			require.Error(t, err, "%s=%s", name, v)
			assert.Regexp(t, "^"+name+": ", err.Error())
		}
	}
}
