//go:build !linux

package main

import "time"

// processCPUTime is not measured on this system.
func processCPUTime() time.Duration { return 0 }

// postgresCPUTime is not measured on this system.
func postgresCPUTime() time.Duration { return 0 }
