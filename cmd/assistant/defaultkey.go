package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cs-assistant/assistant/access"
)

// defaultKeyFile is where a generated default key is saved, in the data dir.
const defaultKeyFile = "default-api-key"

// ensureDefaultKey creates the default platform key when no active platform
// key exists: from ASSISTANT_DEFAULT_API_KEY when set, otherwise generated,
// printed once to the log and saved to <data dir>/default-api-key (0600).
// A restart finds the key and creates nothing.
func ensureDefaultKey(ctx context.Context, keys *access.Keys, cfg Config, log *slog.Logger) error {
	if cfg.DefaultAPIKey != "" {
		created, err := keys.EnsureDefault(ctx, cfg.DefaultAPIKey)
		if err != nil {
			return fmt.Errorf("default API key: %w", err)
		}
		if created {
			log.Info("created the default platform API key from ASSISTANT_DEFAULT_API_KEY")
		} else if ok, err := keys.KnownSecret(ctx, cfg.DefaultAPIKey); err == nil && !ok {
			log.Warn("ASSISTANT_DEFAULT_API_KEY is not an active key and was not created, because an active platform key already exists")
		}
		return nil
	}
	// Write the secret to a temporary file first, so a key is never created
	// that could not be saved; rename it into place only once it exists.
	secret := access.NewSecret()
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	final := filepath.Join(cfg.DataDir, defaultKeyFile)
	tmp, err := os.CreateTemp(cfg.DataDir, defaultKeyFile+".*")
	if err != nil {
		return fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(secret + "\n"); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil { // CreateTemp makes the file 0600.
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	created, err := keys.EnsureDefault(ctx, secret)
	if err != nil || !created {
		return err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return fmt.Errorf("save the default API key to %s: %w", final, err)
	}
	// The one place a secret is logged, on purpose: the first start of a new
	// installation has no other way to hand its operator a key.
	log.Warn("created the default platform API key; this is the only time it is logged",
		"api_key", secret, "saved_to", final)
	return nil
}
