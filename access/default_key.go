package access

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// defaultKeyFile is where a generated default key is saved, in the data dir.
const defaultKeyFile = "default-api-key"

// EnsureDefaultAtStart is what the service does with the default platform
// key at start: when no active platform key exists it creates one, from
// secret (ASSISTANT_DEFAULT_API_KEY) when set, otherwise generated, printed
// once to log and saved to <dataDir>/default-api-key (0600; dataDir is
// ASSISTANT_DATA_DIR). A restart finds the key and creates nothing. Its
// errors and log lines name those variables, which are what the operator
// sets.
func (k *Keys) EnsureDefaultAtStart(ctx context.Context, secret, dataDir string, log *slog.Logger) error {
	if secret != "" {
		created, err := k.EnsureDefault(ctx, secret)
		if err != nil {
			return fmt.Errorf("default API key: %w", err)
		}
		if created {
			log.Info("created the default platform API key from ASSISTANT_DEFAULT_API_KEY")
		} else if ok, err := k.KnownSecret(ctx, secret); err == nil && !ok {
			log.Warn("ASSISTANT_DEFAULT_API_KEY is not an active key and was not created, because an active platform key already exists")
		}
		return nil
	}
	// Write the secret to a temporary file first, so a key is never created
	// that could not be saved; rename it into place only once it exists.
	secret = NewSecret()
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	final := filepath.Join(dataDir, defaultKeyFile)
	tmp, err := os.CreateTemp(dataDir, defaultKeyFile+".*")
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
	created, err := k.EnsureDefault(ctx, secret)
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
