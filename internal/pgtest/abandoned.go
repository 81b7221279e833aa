package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// removeAbandoned stops and deletes clusters whose test binary died without
// cleaning up (test timeout, SIGKILL, a panic in a test). Directories whose
// owner may still be alive, or that have no owner yet, are left alone.
// Errors are ignored: this is housekeeping.
func removeAbandoned(binDir string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		pid, err := ownerPID(dir)
		if err != nil || processAlive(pid) {
			continue
		}
		data := filepath.Join(dir, "data")
		if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
			if c, err := pglocal.New(pglocal.Options{DataDir: data, LogFile: filepath.Join(dir, "postgres.log"), BinDir: binDir}); err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
				_ = c.Shutdown(ctx, pglocal.ShutdownImmediate)
				cancel()
			}
		}
		_ = os.RemoveAll(dir)
	}
}

// ownerPID reads the PID of the test binary that created dir.
func ownerPID(dir string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s: bad owner PID %q", dir, data)
	}
	return pid, nil
}

// processAlive reports whether a process with the given PID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
