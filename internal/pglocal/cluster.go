package pglocal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SuperUser is the name of the superuser role that Init creates. Local
// connections are trusted, so it needs no password.
const SuperUser = "postgres"

// startAttempts is how often Start tries fresh free ports when the chosen
// one was taken between picking it and the server binding it.
const startAttempts = 5

// logTailLines is how many server log lines a failed start reports.
const logTailLines = 20

// Options configure a Cluster.
type Options struct {
	// DataDir is the cluster's data directory. Required. It is created if
	// missing; relative paths are resolved against the working directory.
	DataDir string
	// Port is the TCP port to listen on (127.0.0.1 only). Zero picks a free
	// port each time the cluster starts.
	Port int
	// Fast trades durability for speed, for tests: initdb skips fsync and
	// the server runs with fsync, synchronous_commit and full_page_writes
	// off. A crash of the machine may corrupt such a cluster.
	Fast bool
	// LogFile receives the server log. Defaults to DataDir + ".log".
	LogFile string
	// BinDir holds initdb, pg_ctl and postgres. Defaults to FindBinaries().
	BinDir string
}

// ShutdownMode selects how pg_ctl stops the server (pg_ctl -m).
type ShutdownMode string

// Shutdown modes understood by pg_ctl.
const (
	// ShutdownSmart waits for all clients to disconnect.
	ShutdownSmart ShutdownMode = "smart"
	// ShutdownFast disconnects clients and shuts down cleanly.
	ShutdownFast ShutdownMode = "fast"
	// ShutdownImmediate aborts all server processes without a clean
	// shutdown; the next start runs crash recovery. Fine for throwaway
	// clusters.
	ShutdownImmediate ShutdownMode = "immediate"
)

// Cluster is a PostgreSQL cluster (one data directory, one server) run from
// the machine's binaries. Its methods must not be called concurrently,
// except URL, Port, DataDir, LogFile and Initialized, which may be called
// from many goroutines while no Start or Shutdown is in progress.
type Cluster struct {
	dataDir string
	logFile string
	binDir  string
	fast    bool
	// fixedPort is Options.Port; port is the port of the running server.
	fixedPort int
	port      int
	// owner is the account the binaries run as; nil when not root.
	owner *account
}

// New checks the options and returns a Cluster; it starts nothing. When the
// process runs as root it looks up (or creates) the postgres OS user, which
// will own the data directory and run every PostgreSQL binary.
func New(opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pglocal: Options.DataDir is required")
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("pglocal: invalid port %d", opts.Port)
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pglocal: %w", err)
	}
	logFile := opts.LogFile
	if logFile == "" {
		logFile = dataDir + ".log"
	}
	if logFile, err = filepath.Abs(logFile); err != nil {
		return nil, fmt.Errorf("pglocal: %w", err)
	}
	binDir := opts.BinDir
	if binDir == "" {
		if binDir, err = FindBinaries(); err != nil {
			return nil, fmt.Errorf("pglocal: %w", err)
		}
	}
	// pg_ctl pastes these paths into a double-quoted /bin/sh command line.
	for _, p := range []string{dataDir, logFile, binDir} {
		if strings.ContainsAny(p, "\"$`\\\n") {
			return nil, fmt.Errorf("pglocal: path %q contains a character that pg_ctl cannot quote (\" $ ` \\ or newline)", p)
		}
	}
	c := &Cluster{
		dataDir:   dataDir,
		logFile:   logFile,
		binDir:    binDir,
		fast:      opts.Fast,
		fixedPort: opts.Port,
	}
	if os.Geteuid() == 0 {
		if c.owner, err = postgresAccount(); err != nil {
			return nil, fmt.Errorf("pglocal: %w", err)
		}
	}
	return c, nil
}

// DataDir returns the absolute path of the data directory.
func (c *Cluster) DataDir() string { return c.dataDir }

// LogFile returns the absolute path of the server log file.
func (c *Cluster) LogFile() string { return c.logFile }

// Port returns the TCP port of the running server, or Options.Port (possibly
// zero) before Start.
func (c *Cluster) Port() int {
	if c.port != 0 {
		return c.port
	}
	return c.fixedPort
}

// URL returns a connection URL for database db as the superuser, e.g.
// postgres://postgres@127.0.0.1:5432/db?sslmode=disable.
func (c *Cluster) URL(db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(SuperUser),
		Host:     "127.0.0.1:" + strconv.Itoa(c.Port()),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Initialized reports whether the data directory holds a cluster.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION"))
	return err == nil
}

// Init creates the cluster with initdb unless the data directory already
// holds one. The superuser is "postgres", all local connections are
// trusted, the encoding is UTF8 and the locale C.
func (c *Cluster) Init(ctx context.Context) error {
	if err := c.prepareDirs(); err != nil {
		return err
	}
	if c.Initialized() {
		return nil
	}
	if entries, err := os.ReadDir(c.dataDir); err != nil || len(entries) > 0 {
		return fmt.Errorf("pglocal: data directory %s holds no cluster (no PG_VERSION) but is not empty; "+
			"remove it or choose another directory", c.dataDir)
	}
	args := []string{"-D", c.dataDir, "-U", SuperUser, "--auth=trust", "--encoding=UTF8", "--locale=C"}
	if c.fast {
		args = append(args, "--no-sync")
	}
	if _, err := c.run(ctx, "initdb", args...); err != nil {
		// initdb normally cleans up after itself, but not when killed. The
		// directory was empty, so whatever is in it now is a broken
		// cluster that would pass for a real one (PG_VERSION is written
		// early).
		_ = removeContents(c.dataDir)
		return fmt.Errorf("pglocal: initialize cluster in %s: %w", c.dataDir, err)
	}
	return nil
}

// Start starts the server and waits until it accepts connections. It
// listens on 127.0.0.1 only and creates no Unix-domain socket. With
// Options.Port zero it picks a free port, retrying with another one if the
// port got taken before the server could bind it. If the start fails, the
// error includes the end of the server log.
func (c *Cluster) Start(ctx context.Context) error {
	if err := c.prepareDirs(); err != nil {
		return err
	}
	if !c.Initialized() {
		return fmt.Errorf("pglocal: no cluster in %s; call Init first", c.dataDir)
	}
	if err := c.removeStalePIDFile(); err != nil {
		return err
	}
	attempts := 1
	if c.fixedPort == 0 {
		attempts = startAttempts
	}
	for attempt := 1; ; attempt++ {
		port := c.fixedPort
		if port == 0 {
			var err error
			if port, err = freePort(); err != nil {
				return fmt.Errorf("pglocal: %w", err)
			}
		}
		logStart := fileSize(c.logFile)
		_, err := c.run(ctx, "pg_ctl", "-D", c.dataDir, "-l", c.logFile, "-w", "-t", "60",
			"-o", c.serverOptions(port), "start")
		if err == nil {
			c.port = port
			return nil
		}
		// The server may still be coming up (timeout, cancelled context);
		// make sure it does not linger. Errors are expected and irrelevant.
		_ = c.stopQuietly()
		tail := tailFile(c.logFile, logStart, logTailLines)
		if attempt < attempts && portTaken(tail) {
			continue
		}
		return fmt.Errorf("pglocal: start server on 127.0.0.1:%d: %w\nlast lines of server log %s:\n%s",
			port, err, c.logFile, tail)
	}
}

// serverOptions returns the postgres command-line options (pg_ctl -o); pg_ctl
// passes them through /bin/sh, hence the shell quoting of the empty string.
func (c *Cluster) serverOptions(port int) string {
	opts := "-c listen_addresses=127.0.0.1 -p " + strconv.Itoa(port) + " -c unix_socket_directories=''"
	if c.fast {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	return opts
}

// portTaken reports whether a server log excerpt says the port was in use.
func portTaken(log string) bool {
	return strings.Contains(log, "Address already in use") || strings.Contains(log, "could not bind")
}

// Stop shuts the server down cleanly (fast mode: clients are disconnected).
func (c *Cluster) Stop(ctx context.Context) error {
	return c.Shutdown(ctx, ShutdownFast)
}

// Shutdown stops the server with the given mode and waits for it to exit.
func (c *Cluster) Shutdown(ctx context.Context, mode ShutdownMode) error {
	if _, err := c.run(ctx, "pg_ctl", "-D", c.dataDir, "-m", string(mode), "-w", "-t", "60", "stop"); err != nil {
		return fmt.Errorf("pglocal: stop server in %s: %w", c.dataDir, err)
	}
	c.port = 0
	return nil
}

// stopQuietly makes a best effort to stop a server that failed to start.
func (c *Cluster) stopQuietly() error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "postmaster.pid")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	_, err := c.run(ctx, "pg_ctl", "-D", c.dataDir, "-m", string(ShutdownImmediate), "-w", "stop")
	return err
}

// prepareDirs creates the data directory (mode 0700) and the log file's
// directory, and when running as root hands both to the postgres user and
// checks that it can reach them.
func (c *Cluster) prepareDirs() error {
	if c.owner != nil {
		for _, p := range []string{c.dataDir, c.logFile} {
			if err := checkTraversable(c.owner, p); err != nil {
				return fmt.Errorf("pglocal: %w", err)
			}
		}
	}
	if err := mkdirAll(c.dataDir, 0o700); err != nil {
		return fmt.Errorf("pglocal: create data directory: %w", err)
	}
	if err := mkdirAll(filepath.Dir(c.logFile), 0o755); err != nil {
		return fmt.Errorf("pglocal: create log directory: %w", err)
	}
	f, err := os.OpenFile(c.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("pglocal: create log file: %w", err)
	}
	_ = f.Close()
	if c.owner != nil {
		if err := chownTree(c.owner, c.dataDir); err != nil {
			return fmt.Errorf("pglocal: give data directory to OS user %s: %w", c.owner.name, err)
		}
		if err := os.Chown(c.logFile, int(c.owner.uid), int(c.owner.gid)); err != nil {
			return fmt.Errorf("pglocal: give log file to OS user %s: %w", c.owner.name, err)
		}
	}
	// PostgreSQL refuses data directories readable by others.
	if fi, err := os.Stat(c.dataDir); err == nil && fi.Mode().Perm()&^0o750 != 0 {
		if err := os.Chmod(c.dataDir, 0o700); err != nil {
			return fmt.Errorf("pglocal: %w", err)
		}
	}
	return nil
}
