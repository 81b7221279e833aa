package ingest

import (
	"os"
	"testing"

	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

// TestMain starts the package's throwaway PostgreSQL (see pgtest).
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }
