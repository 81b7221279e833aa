package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/operate"
)

// The commands' exit codes.
const (
	exitOK    = operate.ExitOK
	exitFail  = operate.ExitFail
	exitUsage = operate.ExitUsage
)

// cliRun is one finished command.
type cliRun struct {
	code           int
	stdout, stderr string
}

// cliEnviron is the environment a command reads for cfg, as an operator
// would set it for the server.
func cliEnviron(cfg config.Config) map[string]string {
	return map[string]string{
		"DATABASE_URL":               cfg.DatabaseURL,
		"ASSISTANT_DATA_DIR":         cfg.DataDir,
		"ASSISTANT_MAX_UPLOAD_BYTES": strconv.FormatInt(cfg.MaxUploadBytes, 10),
		"ASSISTANT_INDEX_WORKERS":    strconv.Itoa(cfg.IndexWorkers),
		"ASSISTANT_INDEX_LEASE":      cfg.IndexLease.String(),
		// The server's key, so that commands open the provider keys it sealed.
		"ASSISTANT_SECRET_KEY":     hex.EncodeToString(cfg.SecretKey),
		"ASSISTANT_OUTBOUND_ALLOW": cfg.OutboundAllow.String(),
	}
}

// runWith runs a command in-process with environment vars.
func runWith(t *testing.T, vars map[string]string, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := runCLI(ctx, args, func(k string) string { return vars[k] }, &stdout, &stderr)
	return cliRun{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// cli runs a command against the env's database, as a second process
// next to the running service would.
func (e *env) cli(t *testing.T, args ...string) cliRun {
	t.Helper()
	return runWith(t, cliEnviron(e.cfg), args...)
}

func TestCLIUsage(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // contained in stdout
		stderr string // contained in stderr
	}{
		{"help lists every command", []string{"help"}, exitOK, "keys create --name N", ""},
		{"-h is help", []string{"-h"}, exitOK, "reindex --stale|--all", ""},
		{"an unknown command prints the usage", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"keys needs a subcommand", []string{"keys"}, exitUsage, "", "want a subcommand: create, list or revoke"},
		{"an unknown keys subcommand", []string{"keys", "rotate"}, exitUsage, "", `unknown subcommand "rotate"`},
		{"keys create needs a name", []string{"keys", "create", "--scopes", "chat"}, exitUsage, "", "--name is required"},
		{"keys create checks the tenant id", []string{"keys", "create", "--name", "n", "--tenant", "Not A Tenant"}, exitUsage, "", `"Not A Tenant" is not a tenant id`},
		{"keys create checks the expiry", []string{"keys", "create", "--name", "n", "--expires", "30d"}, exitUsage, "", "invalid value \"30d\" for flag -expires"},
		{"keys revoke needs one id", []string{"keys", "revoke"}, exitUsage, "", "want one key id"},
		{"ingest needs a folder", []string{"ingest", "--kb", "kb_x"}, exitUsage, "", "want one folder, got 0 arguments"},
		{"ingest needs a knowledge base", []string{"ingest", "."}, exitUsage, "", "--kb is required"},
		{"ingest needs a folder that exists", []string{"ingest", "/no/such/folder", "--kb", "kb_x"}, exitUsage, "", "/no/such/folder is not a readable folder"},
		{"reindex says which documents", []string{"reindex"}, exitUsage, "", "say which documents: --stale or --all"},
		{"reindex takes one of --stale and --all", []string{"reindex", "--stale", "--all"}, exitUsage, "", "say which documents"},
		{"an unknown flag", []string{"migrate", "--force"}, exitUsage, "", "flag provided but not defined: -force"},
		{"a command's -h", []string{"ingest", "-h"}, exitOK, "", "Usage: assistant ingest DIR --kb ID"},
		{"serve takes no arguments", []string{"serve", "now"}, exitUsage, "", `takes no arguments, got "now"`},
		{"a missing DATABASE_URL is named", []string{"keys", "list"}, exitFail, "", "DATABASE_URL: required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runWith(t, map[string]string{}, c.args...)
			assert.Equal(t, c.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, c.stdout)
			assert.Contains(t, r.stderr, c.stderr)
			if c.code == exitUsage && strings.HasPrefix(c.name, "an unknown command") {
				assert.Contains(t, r.stderr, "Commands:", "the usage follows")
			}
		})
	}
}

// migrate brings an empty database to the current schema and says so;
// a second run has nothing to do.
func TestCLIMigrate(t *testing.T) {
	admin, err := pgx.Connect(t.Context(), pgtest.AdminURL(t))
	require.NoError(t, err)
	name := "cli_migrate_" + strings.ToLower(strings.TrimPrefix(domain.NewID(""), "_"))
	_, err = admin.Exec(t.Context(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := admin.Exec(context.Background(), "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		assert.NoError(t, err)
		_ = admin.Close(context.Background())
	})
	cfg := testConfig(t, pgtest.Cluster(t).URL(name))
	vars := cliEnviron(cfg)

	status := runWith(t, vars, "migrate", "--status")
	require.Equal(t, exitOK, status.code, "%s", status.stderr)
	pending := pendingCount(t, status.stdout)
	assert.Positive(t, pending, "an empty database has every migration pending: %s", status.stdout)
	assert.Contains(t, status.stdout, "database at version 0;")

	first := runWith(t, vars, "migrate")
	require.Equal(t, exitOK, first.code, "%s", first.stderr)
	assert.Contains(t, first.stdout, fmt.Sprintf("applied %d migration(s)\n", pending))
	assert.Contains(t, first.stdout, "0001_")
	assert.Contains(t, first.stdout, "; 0 pending\n")

	again := runWith(t, vars, "migrate")
	require.Equal(t, exitOK, again.code, "%s", again.stderr)
	assert.Contains(t, again.stdout, "applied 0 migration(s)\n")
	assert.Contains(t, again.stdout, "; 0 pending\n")

	// The service starts on the migrated database and is ready.
	e := startEnv(t, cfg)
	assert.Equal(t, 200, e.do(req{method: "GET", path: "/readyz"}).Status)
}

// pendingCount reads "database at version N; M pending".
func pendingCount(t *testing.T, out string) int {
	t.Helper()
	var version int64
	var pending int
	i := strings.Index(out, "database at version")
	require.GreaterOrEqual(t, i, 0, out)
	_, err := fmt.Sscanf(out[i:], "database at version %d; %d pending", &version, &pending)
	require.NoError(t, err, out)
	return pending
}
