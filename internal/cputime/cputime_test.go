package cputime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProcessCountsTheWorkDone(t *testing.T) {
	before := Process()
	deadline := time.Now().Add(60 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		n++
	}
	assert.Positive(t, n)
	assert.GreaterOrEqual(t, Process()-before, 20*time.Millisecond, "a busy 60 ms costs CPU")
}
