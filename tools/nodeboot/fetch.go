package main

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// fetchAttempts is how often a download is tried before giving up.
const fetchAttempts = 3

// fetch downloads p's tarball from registry into a temporary file in dir
// and checks it against p.Integrity. It returns the file's path; the
// caller removes it. A tarball whose hash differs is an error and is not
// kept.
func fetch(ctx context.Context, client *http.Client, registry string, p Package, dir string) (string, error) {
	url := strings.TrimRight(registry, "/") + "/" + p.TarballPath()
	var err error
	for attempt := 1; attempt <= fetchAttempts; attempt++ {
		var path string
		if path, err = fetchOnce(ctx, client, url, dir); err == nil {
			if err = checkIntegrity(path, p.Integrity); err == nil {
				return path, nil
			}
			_ = os.Remove(path)
			return "", fmt.Errorf("%s: %w", url, err) // a wrong hash is not transient
		}
		if ctx.Err() != nil || !retryable(err) {
			break
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return "", fmt.Errorf("download %s: %w", url, err)
}

// fetchOnce downloads url into a new temporary file in dir.
func fetchOnce(ctx context.Context, client *http.Client, url, dir string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", statusError{code: resp.StatusCode, status: resp.Status}
	}
	f, err := os.CreateTemp(dir, ".download-*.tgz")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// statusError is a registry answer other than 200 OK.
type statusError struct {
	code   int
	status string
}

func (e statusError) Error() string { return "HTTP " + e.status }

// retryable reports whether a failed download may succeed when tried
// again: a network error or a server error, not a 404.
func retryable(err error) bool {
	var se statusError
	return !errors.As(err, &se) || se.code >= 500 || se.code == http.StatusTooManyRequests
}

// checkIntegrity compares the file's sha512 with an SRI string
// ("sha512-" and the base64 digest), as npm's lockfiles and the registry's
// metadata write it.
func checkIntegrity(path, integrity string) error {
	want, ok := strings.CutPrefix(integrity, "sha512-")
	if !ok {
		return fmt.Errorf("integrity %q: want a sha512- value", integrity)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("integrity mismatch: got sha512-%s, want %s", got, integrity)
	}
	return nil
}
