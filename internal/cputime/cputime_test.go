package cputime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProcessCountsTheWorkDone(t *testing.T) {
	before := Process()
	// Busy until 30 ms of CPU are used, whatever else runs; a wall-clock
	// cap ends it (and fails) if Process never moves.
	for cap := time.Now().Add(10 * time.Second); Process()-before < 30*time.Millisecond && time.Now().Before(cap); {
	}
	assert.GreaterOrEqual(t, Process()-before, 30*time.Millisecond)
}
