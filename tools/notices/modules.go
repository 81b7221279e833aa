package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Platforms are the GOOS/GOARCH pairs the image is built for; the graph
// is the union of theirs (CGO_ENABLED=0, as the Dockerfile builds).
var Platforms = []string{"linux/amd64", "linux/arm64"}

// Module is one module of the build graph with its licence files.
type Module struct {
	Path    string
	Version string
	// Dir is where its files are: the module cache, or a replacement.
	Dir   string
	Files []File
	// Kinds are the licences found in Files (SPDX ids, sorted); empty
	// when none was recognised.
	Kinds []string
}

// File is one licence, notice or patent file of a module.
type File struct {
	Name string
	Text string
}

// listed is the part of `go list -json=Module` that is read.
type listed struct {
	Module *struct {
		Path    string
		Version string
		Main    bool
		Dir     string
		Replace *struct {
			Path    string
			Version string
			Dir     string
		}
	}
}

// ListModules returns the modules other than the main one that the
// packages pkgs import, directly or not, on any of Platforms, sorted by
// path, each with its licence files. It runs go in root.
func ListModules(root string, pkgs ...string) ([]Module, error) {
	byPath := map[string]Module{}
	for _, p := range Platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		cmd := exec.Command("go", append([]string{"list", "-deps", "-json=Module"}, pkgs...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list (%s): %w: %s", p, err, stderr.String())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var l listed
			if err := dec.Decode(&l); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("go list (%s): %w", p, err)
			}
			m := l.Module
			if m == nil || m.Main {
				continue
			}
			mod := Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
			if r := m.Replace; r != nil {
				mod.Version, mod.Dir = r.Version, r.Dir
				if r.Version == "" {
					mod.Version = "=> " + r.Path
				}
			}
			byPath[mod.Path] = mod
		}
	}
	mods := make([]Module, 0, len(byPath))
	for _, m := range byPath {
		if m.Dir == "" {
			return nil, fmt.Errorf("%s %s is not in the module cache (run go mod download)", m.Path, m.Version)
		}
		var err error
		if m.Files, err = licenceFiles(m.Dir); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Path, err)
		}
		m.Kinds = kindsOf(m.Files)
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

// licenceFiles reads the licence, notice and patent files at the root of
// dir, sorted by name.
func licenceFiles(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range entries { // ReadDir sorts by name
		if !e.Type().IsRegular() || !isLicenceFile(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: e.Name(), Text: string(b)})
	}
	return files, nil
}

// kindsOf is the union of the licences in files (notices and patent
// grants do not count).
func kindsOf(files []File) []string {
	var kinds []string
	for _, f := range files {
		if isNoticeOnly(f.Name) {
			continue
		}
		for _, k := range Classify(f.Text) {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	slices.Sort(kinds)
	return kinds
}

// StandardLibrary is the Go standard library and runtime, which every Go
// binary contains, with the licence files of the toolchain that root's
// go.mod selects.
func StandardLibrary(root string) (Module, error) {
	cmd := exec.Command("go", "env", "GOROOT")
	cmd.Dir = root // the toolchain go.mod selects
	out, err := cmd.Output()
	if err != nil {
		return Module{}, fmt.Errorf("go env GOROOT: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	files, err := licenceFiles(dir)
	if err != nil {
		return Module{}, err
	}
	return Module{Path: "Go standard library and runtime", Dir: dir, Files: files, Kinds: kindsOf(files)}, nil
}
