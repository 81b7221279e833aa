package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/pg"
)

// Exit codes of the commands.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// usageText lists the commands; `assistant help` and -h print it.
const usageText = `Usage: assistant [command] [flags]

The customer-service assistant. Without a command it serves the HTTP API.
Every command reads the same environment as the server (DATABASE_URL,
ASSISTANT_* and the rest; see README.md) and acts as the platform operator,
with no API key.

Commands:
  serve                 serve the HTTP API (the default)
  migrate [--status]    apply the database migrations and exit
  keys create --name N [--tenant T] [--scopes admin,chat] [--expires 720h]
                        issue an API key; prints its id and its secret, once
  keys list [--tenant T] [--revoked]
                        list API keys
  keys revoke ID        revoke an API key; it stops working everywhere
  ingest DIR --kb ID [--tenant T]
                        upload every supported file under DIR to a knowledge
                        base and wait until each is indexed or failed
  reindex --stale|--all [--kb ID] [--tenant T]
                        index documents again: those left stale by an
                        embedding model change, or all of them
  healthcheck           exit 0 when the local server answers /readyz
  help                  show this text

Run 'assistant COMMAND -h' for a command's flags.
`

// cli is what a command runs with: its environment and output streams.
type cli struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// runCLI runs the command in args (os.Args without the program name) and
// returns the process's exit code: 0 on success, 1 when the command
// failed, 2 for a usage error.
func runCLI(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c := cli{getenv: getenv, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "healthcheck":
		return healthcheck(getenv)
	case "serve":
		// main serves without coming here; serve takes no arguments.
		return c.usageError("serve", "takes no arguments, got %q", strings.Join(rest, " "))
	case "migrate":
		return c.migrate(ctx, rest)
	case "keys":
		return c.keys(ctx, rest)
	case "ingest":
		return c.ingest(ctx, rest)
	case "reindex":
		return c.reindex(ctx, rest)
	default:
		fmt.Fprintf(stderr, "assistant: unknown command %q\n\n%s", cmd, usageText)
		return exitUsage
	}
}

// flagSet returns a command's flag set, reporting to stderr; usage is
// the synopsis after "assistant ".
func (c cli) flagSet(name, usage, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "Usage: assistant %s\n\n%s\n", usage, about)
		if hasFlags(fs) {
			fmt.Fprintln(c.stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseArgs parses flags given before, between or after the positional
// arguments (the flag package alone stops at the first positional one)
// and returns the positional ones. A "--" ends the flags. -h is
// errHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// parseExit is the exit code for a parse error: 0 after -h, else 2.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// usageError reports a wrong use of a command, in one line, and returns 2.
func (c cli) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "assistant %s: %s (see 'assistant %s -h')\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

// fail reports a failed command, in one line, and returns 1.
func (c cli) fail(cmd string, err error) int {
	fmt.Fprintf(c.stderr, "assistant %s: %s\n", cmd, describe(err))
	return exitFail
}

// describe renders an error for a person: a domain error's message and
// field errors without its code, anything else as it is.
func describe(err error) string {
	var de *domain.Error
	if !errors.As(err, &de) {
		return err.Error()
	}
	msg := de.Message
	for _, f := range de.Fields {
		msg += fmt.Sprintf(" %s: %s.", f.Field, f.Message)
	}
	if de.Err != nil && de.Code == domain.CodeInternal {
		msg += " " + de.Err.Error()
	}
	return msg
}

// parseTenant checks a --tenant value; "" stays "" (no tenant named).
func parseTenant(s string) (domain.TenantID, error) {
	if s == "" {
		return "", nil
	}
	if _, err := domain.ParseTenantID("--tenant", s); err != nil {
		return "", fmt.Errorf("--tenant: %q is not a tenant id (3 to 64 of a-z, 0-9, '_', '-'; starting and ending with a letter or digit)", s)
	}
	return domain.TenantID(s), nil
}

// loadConfig reads the server's configuration and a logger for a
// command: text lines on w at warn level unless LOG_LEVEL or LOG_FORMAT
// say otherwise, so the command's own output stays readable.
func (c cli) loadConfig(w io.Writer) (Config, *slog.Logger, error) {
	cfg, err := LoadConfig(c.getenv)
	if err != nil {
		return cfg, nil, err
	}
	level := slog.LevelWarn
	if c.getenv("LOG_LEVEL") != "" {
		level = cfg.LogLevel
	}
	opts := &slog.HandlerOptions{Level: level}
	if c.getenv("LOG_FORMAT") == "json" {
		return cfg, slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return cfg, slog.New(slog.NewTextHandler(w, opts)), nil
}

// openCore connects and builds what every command needs, as the server
// does (migrations applied, store, key and tenant services), without the
// server's default key, caches or background loops.
func openCore(ctx context.Context, cfg Config, log *slog.Logger) (*app, error) {
	pool, err := pg.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, pool: pool}
	if err := a.buildCore(ctx); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// joinLines indents lines under a heading for a report.
func joinLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
