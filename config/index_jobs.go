package config

import (
	"fmt"
	"strconv"
)

// loadIndexJobs reads how the index workers share themselves among the
// tenants into c; c.IndexWorkers is read already.
func loadIndexJobs(c *Config, getenv func(string) string) error {
	// One worker of every replica stays free for the other tenants,
	// however many jobs one tenant has, and whatever its provider does.
	c.IndexJobsPerTenant = max(c.IndexWorkers-1, 1)
	if v := getenv("ASSISTANT_INDEX_JOBS_PER_TENANT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000 {
			return fmt.Errorf("ASSISTANT_INDEX_JOBS_PER_TENANT: want 0 (no cap) to 1000, got %q", v)
		}
		c.IndexJobsPerTenant = n
	}
	return nil
}
