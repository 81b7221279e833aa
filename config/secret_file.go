package config

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// maxSecretFileBytes bounds a secret file: a secret is a line, so a larger
// file is the wrong file.
const maxSecretFileBytes = 4 << 10

// secretFromFile reads the secret of variable name from the file that
// name_FILE names, when it is set (a container secret such as
// /run/secrets/…), into dst, which holds name's own value. Surrounding
// white space (the file's final newline) is dropped. Setting both, an
// unreadable, empty or oversized file is an error naming name_FILE. It
// returns the variable the secret came from, for later messages.
func secretFromFile(dst *string, name string, getenv func(string) string) (string, error) {
	fileVar := name + "_FILE"
	path := getenv(fileVar)
	if path == "" {
		return name, nil
	}
	if *dst != "" {
		return fileVar, fmt.Errorf("%s: set either %s or %s, not both", fileVar, name, fileVar)
	}
	f, err := os.Open(path)
	if err != nil {
		return fileVar, fmt.Errorf("%s: %w", fileVar, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return fileVar, fmt.Errorf("%s: %w", fileVar, err)
	}
	if len(b) > maxSecretFileBytes {
		return fileVar, fmt.Errorf("%s: %s is larger than %d bytes: not a secret", fileVar, path, maxSecretFileBytes)
	}
	secret := strings.TrimSpace(string(b))
	if secret == "" {
		return fileVar, fmt.Errorf("%s: %s is empty", fileVar, path)
	}
	*dst = secret
	return fileVar, nil
}
