package config

import (
	"testing"

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
