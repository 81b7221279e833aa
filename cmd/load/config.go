package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Config is what a run does; parseConfig fills it from flags and the
// environment.
type Config struct {
	// URL is the service's root (the API is under /api/v1).
	URL string
	// Key is the API key the run acts with.
	Key string
	// Tenant is the tenant the run seeds and talks in.
	Tenant string
	// KBName names the seeded knowledge base in the tenant.
	KBName string
	// Chunks is the size of the knowledge base; FileChunks how many go
	// into one uploaded file; Uploads how many files are sent at once.
	Chunks, FileChunks, Uploads int
	// Reseed replaces the knowledge base even when it is already seeded.
	Reseed bool
	// IndexTimeout bounds waiting for the knowledge base to be indexed.
	IndexTimeout time.Duration
	// Customers hold conversations at once for Duration; each waits Think
	// between a reply and its next message, and a reply that takes over
	// MessageTimeout counts as an error.
	Customers      int
	Duration       time.Duration
	Think          time.Duration
	MessageTimeout time.Duration
	// RaiseLimits lifts the tenant's request rate limits (platform key).
	RaiseLimits bool
	// PID is the service's process, for its memory; 0 finds the process
	// listening on URL's port on this machine, -1 measures nothing.
	PID int
	// Poll is how often seeding looks at the indexing progress.
	Poll time.Duration
}

// Highest sizes the flags accept: the FAQ generator keeps every entry one
// chunk up to far more, and the service's upload limit (20 MiB by default)
// holds 100,000 entries in a file.
const (
	maxChunks     = 2_000_000
	maxFileChunks = 100_000
	maxCustomers  = 10_000
)

// parseConfig reads the flags in args; getenv supplies the defaults of the
// URL and the key. Usage and flag errors go to out.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(out)
	var c Config
	dataDir := orDefault(getenv("ASSISTANT_DATA_DIR"), ".data")
	fs.StringVar(&c.URL, "url", orDefault(getenv("ASSISTANT_URL"), "http://127.0.0.1:8080"), "the service's root URL (or ASSISTANT_URL)")
	fs.StringVar(&c.Key, "key", "", "a platform API key (default: ASSISTANT_API_KEY, ASSISTANT_DEFAULT_API_KEY, else -key-file)")
	keyFile := fs.String("key-file", filepath.Join(dataDir, "default-api-key"), "file holding the key: the default key make run saved (ASSISTANT_DATA_DIR)")
	fs.StringVar(&c.Tenant, "tenant", "load", "tenant to seed and talk in (created when missing)")
	fs.StringVar(&c.KBName, "kb-name", "Load test FAQ", "name of the seeded knowledge base")
	fs.IntVar(&c.Chunks, "chunks", 100_000, "chunks of the knowledge base (one FAQ entry each)")
	fs.IntVar(&c.FileChunks, "file-chunks", 20_000, "chunks per uploaded text file")
	fs.IntVar(&c.Uploads, "uploads", 2, "files uploaded at once")
	fs.BoolVar(&c.Reseed, "reseed", false, "seed again even when the knowledge base is already seeded")
	fs.DurationVar(&c.IndexTimeout, "index-timeout", 2*time.Hour, "how long seeding may wait for indexing")
	fs.IntVar(&c.Customers, "customers", 200, "concurrent customer conversations")
	fs.DurationVar(&c.Duration, "duration", 60*time.Second, "how long customers keep sending messages")
	fs.DurationVar(&c.Think, "think", 0, "pause of a customer between a reply and its next message")
	fs.DurationVar(&c.MessageTimeout, "message-timeout", 60*time.Second, "a reply taking longer is an error")
	fs.BoolVar(&c.RaiseLimits, "raise-limits", true, "raise the tenant's rate limits and open streams per key (PATCH /admin/tenants/{id}; needs a platform key)")
	fs.IntVar(&c.PID, "pid", 0, "the service's process id for its memory (0: the process listening on the URL's port; -1: none)")
	fs.DurationVar(&c.Poll, "poll", time.Second, "how often seeding looks at the indexing progress")
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: load [flags]   (drives a running service; see make load)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c.Key = firstKey(c.Key, getenv("ASSISTANT_API_KEY"), getenv("ASSISTANT_DEFAULT_API_KEY"))
	if c.Key == "" {
		data, err := os.ReadFile(*keyFile)
		if err != nil {
			return Config{}, fmt.Errorf("no API key: pass -key, set ASSISTANT_API_KEY or start the service once with make run (%w)", err)
		}
		c.Key = strings.TrimSpace(string(data))
	}
	return c, c.validate()
}

// validate checks the values no run can use.
func (c Config) validate() error {
	u, err := url.Parse(c.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("-url %q: want http://host:port", c.URL)
	case c.Chunks < 1 || c.Chunks > maxChunks:
		return fmt.Errorf("-chunks %d: want 1..%d", c.Chunks, maxChunks)
	case c.FileChunks < 1 || c.FileChunks > maxFileChunks:
		return fmt.Errorf("-file-chunks %d: want 1..%d", c.FileChunks, maxFileChunks)
	case c.Uploads < 1:
		return errors.New("-uploads: want at least 1")
	case c.Customers < 1 || c.Customers > maxCustomers:
		return fmt.Errorf("-customers %d: want 1..%d", c.Customers, maxCustomers)
	case c.Duration <= 0 || c.MessageTimeout <= 0 || c.IndexTimeout <= 0 || c.Poll <= 0:
		return errors.New("-duration, -message-timeout, -index-timeout and -poll must be positive")
	case c.Think < 0:
		return errors.New("-think must not be negative")
	case c.PID < -1:
		return fmt.Errorf("-pid %d: want a process id, 0 or -1", c.PID)
	}
	return nil
}

// firstKey is the first non-empty key, trimmed.
func firstKey(keys ...string) string {
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			return k
		}
	}
	return ""
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
