package cputime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPostgresSumsThePostgresProcessesOnly(t *testing.T) {
	proc := t.TempDir()
	stat := func(pid, line string) {
		require.NoError(t, os.MkdirAll(filepath.Join(proc, pid), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(line), 0o644))
	}
	// pid (comm) state ppid ... utime (14th field) stime (15th).
	stat("10", "10 (postgres) S 1 10 10 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 1 0 1000 0 0")
	stat("11", "11 (postgres) S 10 10 10 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 1000 0 0")
	stat("12", "12 (not postgres) S 1 12 12 0 -1 4194560 100 0 0 0 999 999 0 0 20 0 1 0 1000 0 0")
	stat("13", "13 (assistant) R 1 13 13 0 -1 4194560 100 0 0 0 500 500 0 0 20 0 1 0 1000 0 0")
	stat("14", "14 (postgres) S 10")
	assert.Equal(t, 2100*time.Millisecond, postgresIn(proc), "(150+50+7+3) ticks of 10 ms; other commands and short lines left out")
}
