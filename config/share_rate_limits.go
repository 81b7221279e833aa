package config

import "fmt"

// Defaults of the share page's rate limits, in requests per minute.
const (
	defaultShareRateLimitPerShare   = 120
	defaultShareRateLimitPerAddress = 300
)

// loadShareRateLimits reads the share page's rate limits into c.
func loadShareRateLimits(c *Config, getenv func(string) string) error {
	perShare, err := nonNegativeInt(getenv("ASSISTANT_SHARE_RATE_LIMIT_PER_SHARE"), defaultShareRateLimitPerShare)
	if err != nil {
		return fmt.Errorf("ASSISTANT_SHARE_RATE_LIMIT_PER_SHARE: %w", err)
	}
	perAddress, err := nonNegativeInt(getenv("ASSISTANT_SHARE_RATE_LIMIT_PER_ADDRESS"), defaultShareRateLimitPerAddress)
	if err != nil {
		return fmt.Errorf("ASSISTANT_SHARE_RATE_LIMIT_PER_ADDRESS: %w", err)
	}
	c.ShareRateLimitPerShare, c.ShareRateLimitPerAddress = int(perShare), int(perAddress)
	return nil
}
