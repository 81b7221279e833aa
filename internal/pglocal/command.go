package pglocal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// stopTimeout bounds best-effort shutdowns that have no caller context.
const stopTimeout = 30 * time.Second

// run runs one of the PostgreSQL binaries, as the postgres user when we are
// root, and returns its combined output. On failure the error contains the
// command line and its output.
func (c *Cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	// "/" is always reachable, unlike a working directory under /root.
	cmd.Dir = "/"
	cmd.Env = c.childEnv()
	if c.owner != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.owner.credential()}
	}
	// On cancellation ask politely first: initdb removes a half-built
	// cluster on SIGTERM, but cannot on SIGKILL.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		if text == "" {
			text = "(no output)"
		}
		return text, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, text)
	}
	return text, nil
}

// childEnv returns the environment for PostgreSQL binaries: ours without
// PG* variables (PGDATA, PGPORT, ... would override our settings), with a
// C locale for predictable messages and, when switching to the postgres
// user, that user's HOME.
func (c *Cluster) childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(key, "PG"), key == "LC_ALL", key == "LANG", key == "LANGUAGE":
			continue
		case key == "HOME" && c.owner != nil:
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C")
	if c.owner != nil {
		env = append(env, "HOME="+c.owner.homeDir(c.dataDir), "USER="+c.owner.name, "LOGNAME="+c.owner.name)
	}
	return env
}
