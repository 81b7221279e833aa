package cputime

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTick = 10 * time.Millisecond

// Postgres returns the CPU time the machine's running PostgreSQL
// processes have used (their /proc/<pid>/stat utime + stime): in a
// benchmark, the test cluster's server and its connections' backends.
func Postgres() time.Duration { return postgresIn("/proc") }

// postgresIn is Postgres over the process table mounted at proc.
func postgresIn(proc string) time.Duration {
	stats, _ := filepath.Glob(filepath.Join(proc, "[0-9]*", "stat"))
	var sum time.Duration
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open || s[open+1:closing] != "postgres" {
			continue
		}
		// After the command: state is field 3; utime and stime are 14 and 15.
		f := strings.Fields(s[closing+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += time.Duration(u+st) * clockTick
	}
	return sum
}
