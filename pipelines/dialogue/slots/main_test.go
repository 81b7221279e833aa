package slots_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// The tenants every test has: acme holds the definitions, other is the
// tenant whose ids acme must not reach.
const (
	acme  domain.TenantID = "acme"
	other domain.TenantID = "other"
)

// newService is the service over the real store of a fresh database in
// which both tenants exist, reading the rules from the store.
func newService(t *testing.T) (*slots.Service, *pg.Store) {
	t.Helper()
	store, _ := newStore(t)
	return slots.NewService(store, store, store, nil), store
}

// newStore is the real store of a fresh database in which both tenants
// exist, and its pool.
func newStore(t *testing.T) (*pg.Store, *pgxpool.Pool) {
	t.Helper()
	pool, err := pg.Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	for _, id := range []domain.TenantID{acme, other} {
		_, err := store.EnsureTenant(t.Context(), id)
		require.NoError(t, err)
	}
	return store, pool
}

// newField stores a metadata field of tenant and returns its id.
func newField(t *testing.T, store *pg.Store, tenant domain.TenantID, key string) string {
	t.Helper()
	f, err := store.CreateMetadataField(t.Context(), domain.MetadataField{
		ID: domain.NewID(domain.PrefixMetadataField), TenantID: tenant, Key: key, Label: key,
		Type: domain.MetaString, Scope: domain.ScopeDocument, Role: domain.RoleFilter, Status: domain.FieldActive,
	})
	require.NoError(t, err)
	return f.ID
}

// fieldsOf is the fields an error names, in order.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var e *domain.Error
	require.ErrorAs(t, err, &e)
	out := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		out[i] = f.Field
	}
	return out
}
