package pglocal

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// removeStalePIDFile deletes postmaster.pid left behind by a server that is
// gone, so a crash (or a container restart that reused the PID for another
// program) does not block Start. If the server is really running, it
// returns an error saying how to stop it.
func (c *Cluster) removeStalePIDFile() error {
	path := filepath.Join(c.dataDir, "postmaster.pid")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pglocal: %w", err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	_ = f.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return nil // Unreadable; let the server judge the file.
	}
	if processAlive(pid) && isPostgres(pid) {
		return fmt.Errorf("pglocal: a PostgreSQL server (PID %d) is already running in %s; stop it with: %s -D %s stop",
			pid, c.dataDir, filepath.Join(c.binDir, "pg_ctl"), c.dataDir)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pglocal: remove stale %s: %w", path, err)
	}
	return nil
}

// processAlive reports whether a process with the given PID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// isPostgres reports whether process pid is a PostgreSQL server. Without
// /proc (non-Linux) it cannot tell and assumes it is.
func isPostgres(pid int) bool {
	comm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) || !dirExists("/proc/self")
	}
	name := strings.TrimSpace(string(comm))
	return name == "postgres" || name == "postmaster"
}

// dirExists reports whether path is an existing directory.
func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
