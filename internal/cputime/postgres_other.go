//go:build !linux

package cputime

import "time"

// Postgres is not measured on this system: 0.
func Postgres() time.Duration { return 0 }
