package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// pingEnv makes the test binary, run as devdb's command, connect to
// DATABASE_URL and exit: what the service does first.
const pingEnv = "DEVDB_TEST_PING"

func TestMain(m *testing.M) {
	if os.Getenv(pingEnv) == "1" {
		os.Exit(ping())
	}
	os.Exit(m.Run())
}

func ping() int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		os.Stderr.WriteString("ping: " + err.Error() + "\n")
		return 3
	}
	defer conn.Close(ctx)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		return 4
	}
	return 0
}

// make run's runner works from a checkout whose parent only its owner may
// enter (root's home directory in CI and Debian containers): the command
// gets a working DATABASE_URL, and a second run finds the same cluster.
func TestDevdbRunsFromADirectoryOnlyItsOwnerMayEnter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds devdb and starts PostgreSQL")
	}
	if _, err := pglocal.FindBinaries(); err != nil {
		t.Skip("no PostgreSQL binaries on this machine: ", err)
	}
	bin := filepath.Join(t.TempDir(), "devdb")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	home := filepath.Join(t.TempDir(), "home")
	require.NoError(t, os.Mkdir(home, 0o700))
	data := filepath.Join(home, "checkout", ".data")
	self, err := os.Executable()
	require.NoError(t, err)
	run := func() string {
		cmd := exec.Command(bin, "-data", data, "--", self)
		cmd.Env = append(withoutDatabaseURL(os.Environ()), pingEnv+"=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "devdb and its command succeed:\n%s", out)
		return string(out)
	}
	first := run()
	assert.Contains(t, first, "running at postgres://")
	if os.Geteuid() == 0 {
		loc := clusterLocation(data, pglocal.Reachable)
		require.Error(t, loc.moved, "as root, the postgres user cannot enter the 0700 home")
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(loc.dataDir)) })
		assert.Contains(t, first, "lives in "+filepath.Dir(loc.dataDir))
		assert.FileExists(t, filepath.Join(data, locationNote))
	}
	second := run()
	assert.NotContains(t, second, "creating PostgreSQL cluster", "the second run reuses the cluster")
}

func withoutDatabaseURL(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			out = append(out, kv)
		}
	}
	return out
}
