package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// reliabilityFull runs the reliability suite at full size (make
// reliability): 100 uploads, 200 streams for 60 s and so on. Without it the
// same tests run at a size that fits make test.
var reliabilityFull = flag.Bool("reliability.full", false, "run the reliability suite at full size (make reliability)")

// reportMu serialises appends to the report file within this process.
var reportMu sync.Mutex

// reliabilitySize picks the full-size figure under make reliability and
// the small one otherwise.
func reliabilitySize[T any](small, full T) T {
	if *reliabilityFull {
		return full
	}
	return small
}

// reportFigure records one row of make reliability's table: the part of
// the suite, what was measured, and the figure. The rows go to the file
// named by RELIABILITY_REPORT (make reliability prints it as a table) and
// to the test log.
func reportFigure(t testing.TB, part, figure string, value any) {
	t.Helper()
	row := fmt.Sprintf("| %s | %s | %v |", part, figure, value)
	t.Log(row)
	path := os.Getenv("RELIABILITY_REPORT")
	if path == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString(strings.ReplaceAll(row, "\n", " ") + "\n")
	require.NoError(t, err)
}
