package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cs-assistant/assistant/internal/seal"
)

// secretKeyFile is where development keeps the key that seals stored
// secrets when ASSISTANT_SECRET_KEY is unset, in the data dir.
const secretKeyFile = "secret-key"

// keyring is what seals the provider API keys: ASSISTANT_SECRET_KEY (and
// the previous keys, for values sealed before a rotation), or in
// development, without it, the key in <data dir>/secret-key, made (0600)
// on first start. config.Load has refused production without a key.
func (a *app) keyring() (*seal.Keyring, error) {
	current := a.cfg.SecretKey
	if current == nil {
		if a.cfg.Production {
			return nil, errors.New("ASSISTANT_SECRET_KEY: required when ASSISTANT_ENV=production")
		}
		var err error
		if current, err = devSecretKey(a.cfg.DataDir); err != nil {
			return nil, err
		}
	}
	return seal.New(current, a.cfg.SecretKeyPrevious...)
}

// devSecretKey reads dir/secret-key, or makes it: written to a temporary
// file and linked into place, so a half-written key is never read and two
// processes starting at once end up with the same key.
func devSecretKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, secretKeyFile)
	if b, err := os.ReadFile(path); err == nil {
		k, err := seal.ParseKey(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return k, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	tmp, err := os.CreateTemp(dir, secretKeyFile+".*") // 0600
	if err != nil {
		return nil, fmt.Errorf("ASSISTANT_DATA_DIR: %w", err)
	}
	defer os.Remove(tmp.Name())
	key := seal.NewKey()
	if _, err := tmp.WriteString(key + "\n"); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	// Link rather than rename: it fails if another process made the key
	// first, whose key is then the one to use.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return devSecretKey(dir)
		}
		return nil, fmt.Errorf("save the secret key to %s: %w", path, err)
	}
	return seal.ParseKey(key)
}
