package pglocal_test

import (
	"context"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

func TestFindBinaries(t *testing.T) {
	t.Parallel()
	dir, err := pglocal.FindBinaries()
	require.NoError(t, err)
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		assert.FileExists(t, filepath.Join(dir, name))
	}
}

func TestClusterLifecycle(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	base := tempDir(t)
	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(base, "data"), Fast: true})
	require.NoError(t, err)

	begin := time.Now()
	require.NoError(t, c.Init(ctx))
	initialized := time.Now()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Shutdown(context.Background(), pglocal.ShutdownImmediate) })
	t.Logf("initdb %v, start %v", initialized.Sub(begin).Round(time.Millisecond), time.Since(initialized).Round(time.Millisecond))

	assert.NotZero(t, c.Port())
	assert.Equal(t, filepath.Join(base, "data.log"), c.LogFile())
	assertSelectOne(ctx, t, c.URL("postgres"))

	// Init is idempotent; a stopped cluster restarts with its data intact.
	require.NoError(t, c.Stop(ctx))
	require.NoError(t, c.Init(ctx))
	require.NoError(t, c.Start(ctx))
	assertSelectOne(ctx, t, c.URL("postgres"))
	require.NoError(t, c.Shutdown(ctx, pglocal.ShutdownImmediate))
}

func TestStartFailureReportsLog(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(tempDir(t), "data"), Fast: true})
	require.NoError(t, err)
	require.NoError(t, c.Init(ctx))
	conf := filepath.Join(c.DataDir(), "postgresql.conf")
	f, err := os.OpenFile(conf, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\nno_such_setting = 1\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	err = c.Start(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no_such_setting")
	t.Log(err)
}

func TestStartOnTakenFixedPort(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(tempDir(t), "data"), Port: port, Fast: true})
	require.NoError(t, err)
	require.NoError(t, c.Init(ctx))
	err = c.Start(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Address already in use")
	assert.Equal(t, port, c.Port())
}

func TestRootRunsServerAsPostgres(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only meaningful as root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := user.Lookup("postgres")
	require.NoError(t, err)

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(tempDir(t), "data"), Fast: true})
	require.NoError(t, err)
	require.NoError(t, c.Init(ctx))
	for _, p := range []string{c.DataDir(), filepath.Join(c.DataDir(), "PG_VERSION"), c.LogFile()} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, pg.Uid, strconv.Itoa(int(fi.Sys().(*syscall.Stat_t).Uid)), p)
	}
	fi, err := os.Stat(c.DataDir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
}

func TestRootRejectsUnreachableDataDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only meaningful as root")
	}
	private := filepath.Join(tempDir(t), "private")
	require.NoError(t, os.Mkdir(private, 0o700))

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(private, "data"), Fast: true})
	require.NoError(t, err)
	err = c.Init(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot enter "+private)
	t.Log(err)
	assert.NoDirExists(t, c.DataDir(), "nothing is created in a directory postgres cannot use")
}

func TestStartRemovesStalePIDFile(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	c, err := pglocal.New(pglocal.Options{DataDir: filepath.Join(tempDir(t), "data"), Fast: true})
	require.NoError(t, err)
	require.NoError(t, c.Init(ctx))
	// As after a crash and a restart that gave the old PID to another
	// program (here: this test binary, which is alive but no server).
	pidFile := filepath.Join(c.DataDir(), "postmaster.pid")
	require.NoError(t, os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600))

	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Shutdown(context.Background(), pglocal.ShutdownImmediate) })
	assertSelectOne(ctx, t, c.URL("postgres"))
}

func TestStartRefusesRunningCluster(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	opts := pglocal.Options{DataDir: filepath.Join(tempDir(t), "data"), Fast: true}
	first, err := pglocal.New(opts)
	require.NoError(t, err)
	require.NoError(t, first.Init(ctx))
	require.NoError(t, first.Start(ctx))
	t.Cleanup(func() { _ = first.Shutdown(context.Background(), pglocal.ShutdownImmediate) })

	second, err := pglocal.New(opts)
	require.NoError(t, err)
	err = second.Start(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already running")
	assertSelectOne(ctx, t, first.URL("postgres"))
}

// tempDir returns a temporary directory that the postgres OS user can enter
// when the tests run as root (t.TempDir is mode 0700).
func tempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	return dir
}

func assertSelectOne(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	assert.Equal(t, 1, one)
}
