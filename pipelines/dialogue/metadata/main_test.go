package metadata_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// The tenants every test has: acme holds the fields, other is the tenant
// whose fields acme must not see.
const (
	acme  domain.TenantID = "acme"
	other domain.TenantID = "other"
)

// newStore is the real store of a fresh database in which both tenants
// exist, and the database's URL.
func newStore(t *testing.T) (*pg.Store, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	store := openStore(t, url)
	for _, id := range []domain.TenantID{acme, other} {
		_, err := store.EnsureTenant(t.Context(), id)
		require.NoError(t, err)
	}
	return store, url
}

// openStore is a store on a pool of its own on the database at url.
func openStore(t *testing.T, url string) *pg.Store {
	t.Helper()
	pool, err := pg.Open(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pg.New(pool)
}

// exec runs one statement on the database at url.
func exec(t *testing.T, url, sql string) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(t.Context(), sql)
	require.NoError(t, err)
}

// newField stores a field of tenant and returns it.
func newField(t *testing.T, store domain.MetadataStore, tenant domain.TenantID, scope domain.MetadataScope, key string,
	role domain.MetadataRole, status domain.MetadataFieldStatus) domain.MetadataField {
	t.Helper()
	f, err := store.CreateMetadataField(t.Context(), domain.MetadataField{
		ID: domain.NewID(domain.PrefixMetadataField), TenantID: tenant, Key: key, Label: key,
		Type: domain.MetaString, Scope: scope, Role: role, Status: status,
	})
	require.NoError(t, err)
	return f
}
