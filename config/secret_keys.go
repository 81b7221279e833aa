package config

import (
	"fmt"
	"strings"

	"github.com/cs-assistant/assistant/internal/seal"
)

// loadSecretKeys reads ASSISTANT_ENV and the keys that seal stored
// secrets. In production a missing ASSISTANT_SECRET_KEY is an error; in
// development the service makes one at start (see Config.Production).
func loadSecretKeys(c *Config, getenv func(string) string) error {
	switch env := strings.TrimSpace(getenv("ASSISTANT_ENV")); env {
	case "", "development":
	case "production":
		c.Production = true
	default:
		return fmt.Errorf("ASSISTANT_ENV: want production or development, got %q", env)
	}
	raw := getenv("ASSISTANT_SECRET_KEY")
	keyVar, err := secretFromFile(&raw, "ASSISTANT_SECRET_KEY", getenv)
	if err != nil {
		return err
	}
	if raw != "" {
		if c.SecretKey, err = seal.ParseKey(raw); err != nil {
			return fmt.Errorf("%s: %w", keyVar, err)
		}
	} else if c.Production {
		return fmt.Errorf("ASSISTANT_SECRET_KEY: required when ASSISTANT_ENV=production (it seals the stored provider API keys): " +
			"set it, or ASSISTANT_SECRET_KEY_FILE, to 32 random bytes such as the output of `openssl rand -hex 32`")
	}
	for _, p := range strings.Split(getenv("ASSISTANT_SECRET_KEY_PREVIOUS"), ",") {
		if strings.TrimSpace(p) == "" {
			continue
		}
		k, err := seal.ParseKey(p)
		if err != nil {
			return fmt.Errorf("ASSISTANT_SECRET_KEY_PREVIOUS: %w", err)
		}
		c.SecretKeyPrevious = append(c.SecretKeyPrevious, k)
	}
	if c.SecretKeyPrevious != nil && c.SecretKey == nil {
		return fmt.Errorf("ASSISTANT_SECRET_KEY_PREVIOUS: set only beside ASSISTANT_SECRET_KEY, the key that replaces them")
	}
	return nil
}
