package eval

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Pin is a Debian package at an exact version and the sha256 of its .deb,
// as listed in realdocs/packages.json (bookworm).
type Pin struct {
	Package string `json:"package"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// LoadPins reads a pin table.
func LoadPins(path string) (map[string]Pin, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Pin
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pins := map[string]Pin{}
	for _, p := range list {
		if p.Package == "" || p.Version == "" || len(p.SHA256) != 64 {
			return nil, fmt.Errorf("%s: pin %+v needs a package, a version and a sha256", path, p)
		}
		pins[p.Package] = p
	}
	return pins, nil
}

// ErrNoAPT is returned when apt-get or dpkg-deb is not on this machine.
var ErrNoAPT = errors.New("apt-get and dpkg-deb are needed to fetch the real documents (Debian packages)")

// DocsDir is where fetched packages are cached: $EVAL_DOCS_DIR, else
// <repo>/.data/eval-docs when it can be created, else
// <user cache dir>/cs-assistant-eval.
func DocsDir(repo string) string {
	if d := os.Getenv("EVAL_DOCS_DIR"); d != "" {
		return d
	}
	d := filepath.Join(repo, ".data", "eval-docs")
	if os.MkdirAll(d, 0o755) == nil && writable(d) {
		return d
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "cs-assistant-eval")
	}
	return filepath.Join(os.TempDir(), "cs-assistant-eval")
}

func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// Fetcher downloads pinned packages into Dir and extracts each once, in a
// folder of its own (Dir/<package>_<version>). It is safe for concurrent
// use.
type Fetcher struct {
	Dir  string
	Pins map[string]Pin
	// Log, when set, is told what the fetcher does.
	Log func(format string, args ...any)

	mu      sync.Mutex
	updated bool
}

// Root returns the folder the package is extracted to, fetching it first
// when it is not there.
func (f *Fetcher) Root(ctx context.Context, pkg string) (string, error) {
	pin, ok := f.Pins[pkg]
	if !ok {
		return "", fmt.Errorf("package %s has no pin in realdocs/packages.json", pkg)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	root := filepath.Join(f.Dir, pin.Package+"_"+pin.Version)
	if _, err := os.Stat(filepath.Join(root, ".extracted")); err == nil {
		return root, nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return "", ErrNoAPT
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		return "", ErrNoAPT
	}
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return "", err
	}
	deb, err := f.download(ctx, pin)
	if err != nil {
		return "", err
	}
	tmp := root + ".tmp"
	_ = os.RemoveAll(tmp)
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
		return "", fmt.Errorf("dpkg-deb -x %s: %v: %s", deb, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".extracted"), []byte(pin.SHA256+"\n"), 0o644); err != nil {
		return "", err
	}
	_ = os.RemoveAll(root)
	if err := os.Rename(tmp, root); err != nil {
		return "", err
	}
	return root, nil
}

// download runs apt-get download for the pinned version in a scratch
// folder of Dir (the package lists are refreshed once, with apt-get
// update, when a download fails, and it is tried again), checks the
// sha256 and keeps the .deb as Dir/<package>_<version>.deb.
func (f *Fetcher) download(ctx context.Context, pin Pin) (string, error) {
	deb := filepath.Join(f.Dir, pin.Package+"_"+pin.Version+".deb")
	if sum, err := fileSHA256(deb); err == nil && sum == pin.SHA256 {
		return deb, nil
	}
	scratch, err := os.MkdirTemp(f.Dir, "download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	// apt's sandbox user must be able to write there when we are root.
	_ = os.Chmod(scratch, 0o777)
	spec := pin.Package + "=" + pin.Version
	get := func() ([]byte, error) {
		cmd := exec.CommandContext(ctx, "apt-get", "download", "-q", spec)
		cmd.Dir = scratch
		return cmd.CombinedOutput()
	}
	f.logf("apt-get download %s into %s", spec, f.Dir)
	out, err := get()
	if err != nil {
		if !f.updated {
			f.updated = true
			f.logf("apt-get download failed (%v), running apt-get update once and trying again", err)
			if uout, uerr := exec.CommandContext(ctx, "apt-get", "update", "-q").CombinedOutput(); uerr != nil {
				f.logf("apt-get update failed (%v): %s", uerr, tail(uout))
			}
		}
		out, err = get()
	}
	if err != nil {
		return "", fmt.Errorf("apt-get download %s: %v: %s", spec, err, tail(out))
	}
	debs, _ := filepath.Glob(filepath.Join(scratch, pin.Package+"_*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s left %d .deb files: %s", spec, len(debs), tail(out))
	}
	sum, err := fileSHA256(debs[0])
	if err != nil {
		return "", err
	}
	if sum != pin.SHA256 {
		return "", fmt.Errorf("%s: sha256 %s, the pin says %s", filepath.Base(debs[0]), sum, pin.SHA256)
	}
	if err := os.Rename(debs[0], deb); err != nil {
		return "", err
	}
	return deb, nil
}

// Read returns a file of a package, gunzipped when its path ends in ".gz".
func (f *Fetcher) Read(ctx context.Context, src Source) ([]byte, error) {
	root, err := f.Root(ctx, src.Package)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src.Path)))
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(src.Path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src.Path, err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", src.Path, err)
		}
	}
	return b, nil
}

// Fill fetches the document of every dataset with a source.
func (f *Fetcher) Fill(ctx context.Context, ds []Dataset) error {
	for i := range ds {
		if ds[i].Source == nil {
			continue
		}
		b, err := f.Read(ctx, *ds[i].Source)
		if err != nil {
			return fmt.Errorf("%s: %w", ds[i].Name, err)
		}
		ds[i].data = b
	}
	return nil
}

func (f *Fetcher) logf(format string, args ...any) {
	if f.Log != nil {
		f.Log(format, args...)
	}
}

func fileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}
