package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processCPUTime is the CPU time (user + system) this process used: in a
// dialogue benchmark, the service, its client and its fake model.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's times.
const clockTick = 10 * time.Millisecond

// postgresCPUTime is the CPU time the machine's running PostgreSQL
// processes used so far (their /proc/<pid>/stat utime + stime): in a
// benchmark, the test cluster's server and its connections' backends.
func postgresCPUTime() time.Duration {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
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
