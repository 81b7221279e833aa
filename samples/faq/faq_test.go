package faq

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed sample files are what the generator makes.
func TestSampleFilesAreFresh(t *testing.T) {
	for name, want := range Files() {
		got, err := os.ReadFile(name)
		require.NoError(t, err, "run `go run ./samples/faq/gen`")
		assert.Equal(t, want, got, "%s is stale: run `go run ./samples/faq/gen`", name)
	}
}
