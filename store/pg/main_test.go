package pg

import (
	"os"
	"testing"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

// The store's queue tests run on a real PostgreSQL (pgtest): the claim's
// order and its locks are the database's.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, Migrate)) }
