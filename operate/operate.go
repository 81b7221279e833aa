// Package operate is the binary's command line for operators: keys,
// ingest, reindex, migrate and healthcheck. It holds the commands' flags,
// output and exit codes; cmd/assistant only tells serving from a command,
// builds the services (Deps) and calls Run.
package operate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest"
	"github.com/cs-assistant/assistant/store/pg"
)

// Exit codes of the commands.
const (
	// ExitOK is a command's success.
	ExitOK = 0
	// ExitFail is a command that failed, or some of whose items failed.
	ExitFail = 1
	// ExitUsage is a wrong use of a command.
	ExitUsage = 2
)

const (
	exitOK    = ExitOK
	exitFail  = ExitFail
	exitUsage = ExitUsage
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

// Deps is what the commands run with: their environment and output
// streams, and the ways to open the services they use. The binary's
// wiring builds it; each command opens only what it needs, after its
// arguments are checked, and reports a failure to open as its own.
type Deps struct {
	// Getenv reads the environment (TERM, for the progress display;
	// ASSISTANT_ADDR, for healthcheck).
	Getenv func(string) string
	// Stdout and Stderr are the command's output streams.
	Stdout, Stderr io.Writer
	// OpenCore opens the services every command needs (migrations
	// applied), logging to logTo; Core.Ingest is nil.
	OpenCore func(ctx context.Context, logTo io.Writer) (*Core, error)
	// OpenIndexing opens the services with Core.Ingest set and index
	// workers running in this process until Core.Close, logging to logTo.
	OpenIndexing func(ctx context.Context, logTo io.Writer) (*Core, error)
	// OpenMigrator opens the database's migrator, applying nothing,
	// logging to logTo.
	OpenMigrator func(ctx context.Context, logTo io.Writer) (*Migration, error)
}

// Core is the services a command uses, opened for it.
type Core struct {
	// Keys issues, lists and revokes API keys.
	Keys *access.Keys
	// Tenants reads tenants.
	Tenants *access.Tenants
	// Store reads knowledge bases and index jobs.
	Store Store
	// Ingest uploads and re-indexes documents; nil unless opened with
	// Deps.OpenIndexing.
	Ingest *ingest.Service
	// MaxUploadBytes is the largest file an upload takes
	// (ASSISTANT_MAX_UPLOAD_BYTES).
	MaxUploadBytes int64
	// Close stops what was started and releases the database.
	Close func()
}

// Store is what the commands read directly: knowledge bases, and index
// jobs to follow.
type Store interface {
	domain.JobStore
	GetKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) (domain.KnowledgeBase, error)
}

// Migration is the database's migrator, opened for `assistant migrate`.
type Migration struct {
	// Migrator reports and applies the migrations.
	Migrator Migrator
	// Log is the command's logger.
	Log *slog.Logger
	// Close releases the migrator and the database.
	Close func()
}

// Migrator reports and applies the database migrations.
type Migrator interface {
	Status(ctx context.Context) ([]pg.MigrationState, error)
	Up(ctx context.Context) (int, error)
}

// cli is what a command runs with; stdout and stderr are Deps's, short.
type cli struct {
	Deps
	stdout, stderr io.Writer
}

// Run runs the command in args (os.Args without the program name) and
// returns the process's exit code: ExitOK on success, ExitFail when the
// command failed, ExitUsage for a usage error.
func Run(ctx context.Context, d Deps, args []string) int {
	c := cli{Deps: d, stdout: d.Stdout, stderr: d.Stderr}
	stdout, stderr := d.Stdout, d.Stderr
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return exitOK
	case "healthcheck":
		return Healthcheck(d.Getenv, stderr)
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
