//go:build unix

package lexical

import (
	"syscall"
	"time"
)

// processCPUTime returns the CPU time (user + system) the process has used.
// Benchmarks report it next to wall-clock latency: on a shared machine the
// wall clock also counts time spent waiting for a core.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
