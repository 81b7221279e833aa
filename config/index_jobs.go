package config

import (
	"fmt"
	"strconv"
	"time"
)

// Defaults and limits of the index workers' bounds on tenants' providers.
const (
	defaultIndexProviderTimeout = 30 * time.Second
	defaultIndexProviderRetries = 2
	maxIndexProviderRetries     = 10
)

// loadIndexJobs reads how the index workers share themselves among the
// tenants, and how long they wait for a tenant's provider, into c;
// c.IndexWorkers is read already.
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
	c.IndexProviderTimeout = defaultIndexProviderTimeout
	if v := getenv("ASSISTANT_INDEX_PROVIDER_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Millisecond {
			return fmt.Errorf("ASSISTANT_INDEX_PROVIDER_TIMEOUT: want a duration of at least 100ms such as 30s, got %q", v)
		}
		c.IndexProviderTimeout = d
	}
	c.IndexProviderRetries = defaultIndexProviderRetries
	if v := getenv("ASSISTANT_INDEX_PROVIDER_RETRIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxIndexProviderRetries {
			return fmt.Errorf("ASSISTANT_INDEX_PROVIDER_RETRIES: want 0 to %d, got %q", maxIndexProviderRetries, v)
		}
		c.IndexProviderRetries = n
	}
	return nil
}
