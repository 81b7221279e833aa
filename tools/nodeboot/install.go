package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// installer puts pinned packages from a registry under dir.
type installer struct {
	client   *http.Client
	registry string
	dir      string
	// log receives one line per step.
	log func(format string, args ...any)
}

// install fetches the Node.js build node and npm into dir, each in a
// folder of its own named after its version, and points dir/bin/node,
// npm and npx at them. A package already unpacked there is not fetched
// again. It ends by running dir/bin/node --version, so a build that
// cannot run on this machine fails here.
func (in installer) install(ctx context.Context, node, npm Package) error {
	if err := os.MkdirAll(filepath.Join(in.dir, "bin"), 0o755); err != nil {
		return err
	}
	// Of Node.js's tarball only the binary and its licence are needed; the
	// C headers are most of the rest.
	nodeDir, err := in.unpack(ctx, node, func(name string) bool { return name == "bin/node" || name == "LICENSE" })
	if err != nil {
		return err
	}
	npmDir, err := in.unpack(ctx, npm, nil)
	if err != nil {
		return err
	}
	links := map[string]string{
		"node": filepath.Join("..", nodeDir, "bin", "node"),
		"npm":  filepath.Join("..", npmDir, "bin", "npm-cli.js"),
		"npx":  filepath.Join("..", npmDir, "bin", "npx-cli.js"),
	}
	for name, target := range links {
		if err := replaceSymlink(target, filepath.Join(in.dir, "bin", name)); err != nil {
			return err
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(in.dir, "bin", "node"), "--version").Output()
	if err != nil {
		return fmt.Errorf("the fetched Node.js does not run here: %w", err)
	}
	if got := strings.TrimSpace(string(out)); got != "v"+node.Version {
		return fmt.Errorf("the fetched Node.js says %s, want v%s", got, node.Version)
	}
	return nil
}

// unpack makes sure p is unpacked in dir/NAME-VERSION and returns that
// folder's name. The folder appears whole or not at all: it is unpacked
// beside it and renamed into place.
func (in installer) unpack(ctx context.Context, p Package, keep func(string) bool) (string, error) {
	name := p.Name + "-" + p.Version
	final := filepath.Join(in.dir, name)
	if _, err := os.Stat(final); err == nil {
		return name, nil
	}
	in.log("fetching %s@%s", p.Name, p.Version)
	tarball, err := fetch(ctx, in.client, in.registry, p, in.dir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tarball)
	tmp, err := os.MkdirTemp(in.dir, ".unpack-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := extract(tarball, tmp, keep); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(final); statErr == nil {
			return name, nil // another run unpacked it meanwhile
		}
		return "", err
	}
	return name, nil
}

// replaceSymlink points link at target, replacing what was there in one
// rename.
func replaceSymlink(target, link string) error {
	tmp := link + ".new"
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, link)
}
