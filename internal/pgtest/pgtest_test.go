package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pgtest"
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, migrate))
}

// migrate stands in for the application's migrations.
func migrate(ctx context.Context, databaseURL string) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL)`)
	return err
}

// TestIsolation runs two parallel tests, each in its own database; each
// sees the migrated table and only its own rows.
func TestIsolation(t *testing.T) {
	for _, body := range []string{"first", "second"} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
			require.NoError(t, err)
			t.Cleanup(func() { _ = conn.Close(context.Background()) })

			_, err = conn.Exec(ctx, `INSERT INTO notes (body) VALUES ($1)`, body)
			require.NoError(t, err)

			rows, err := conn.Query(ctx, `SELECT body FROM notes`)
			require.NoError(t, err)
			bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
			require.NoError(t, err)
			assert.Equal(t, []string{body}, bodies)
		})
	}
}

func TestDatabaseDroppedAfterTest(t *testing.T) {
	var name string
	t.Run("uses a database", func(t *testing.T) {
		conn, err := pgx.Connect(t.Context(), pgtest.NewDatabase(t))
		require.NoError(t, err)
		require.NoError(t, conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&name))
		// Left open on purpose: the drop must terminate it.
	})

	conn, err := pgx.Connect(t.Context(), pgtest.AdminURL(t))
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var exists bool
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists))
	assert.NotEmpty(t, name)
	assert.False(t, exists, "database %s should be dropped", name)
}

func BenchmarkNewDatabase(b *testing.B) {
	for b.Loop() {
		pgtest.NewDatabase(b)
	}
}
