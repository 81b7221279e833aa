//go:build !linux

package hybrid_test

import "testing"

// benchmarkRescore compares where rescoring reads its vectors from on
// Linux only (rescore_linux_test.go): it maps files and drops their pages
// with Linux calls.
func benchmarkRescore(b *testing.B, _ string, _ replica, _ int) {
	b.Run("rescore", func(b *testing.B) { b.Skip("Linux only") })
}
