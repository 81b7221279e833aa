package access_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// countingStore is the real PostgreSQL store, counting key lookups, to see
// what reaches the database.
type countingStore struct {
	*pg.Store
	lookups atomic.Int64
}

func (c *countingStore) APIKeyByHash(ctx context.Context, h []byte) (domain.APIKey, error) {
	c.lookups.Add(1)
	return c.Store.APIKeyByHash(ctx, h)
}

func newKeys(t *testing.T, o access.KeyOptions) (*access.Keys, *countingStore) {
	t.Helper()
	pool, err := pg.Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := &countingStore{Store: pg.New(pool)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	usage := access.NewUsageRecorder(store, log, time.Minute)
	return access.NewKeys(store, access.NewTenants(store, time.Minute, tenantcache.NewRegistry()), usage, o), store
}

// platform is a platform admin caller.
func platform() domain.Principal {
	return domain.Principal{KeyID: "key_root", Scopes: []domain.Scope{domain.ScopeAdmin}}
}

func TestSecrets(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s := access.NewSecret()
		require.Regexp(t, `^ak_[0-9A-Za-z]{43}$`, s)
		require.True(t, access.WellFormedSecret(s))
		require.False(t, seen[s])
		seen[s] = true
	}
	for _, bad := range []string{"", "ak_", "ak_short", "AK_0123456789abcdefghij0123456789abcdef",
		"ak_0123456789abcdefghij0123456789abcde!", "ak_" + string(make([]byte, 98))} {
		assert.False(t, access.WellFormedSecret(bad), bad)
	}
}

func TestUnknownKeysAreCachedNegatively(t *testing.T) {
	keys, store := newKeys(t, access.DefaultKeyOptions())
	unknown := access.NewSecret()
	for range 5 {
		_, err := keys.Authenticate(t.Context(), unknown)
		assert.Equal(t, domain.CodeUnauthorized, domain.ErrorCodeOf(err))
	}
	assert.EqualValues(t, 1, store.lookups.Load(), "one database read for five attempts")

	_, err := keys.Authenticate(t.Context(), "junk that is not a key")
	assert.Equal(t, domain.CodeUnauthorized, domain.ErrorCodeOf(err))
	assert.EqualValues(t, 1, store.lookups.Load(), "malformed keys never reach the database")
}

func TestKnownKeysAreCachedAndDroppedOnRevoke(t *testing.T) {
	keys, store := newKeys(t, access.DefaultKeyOptions())
	key, secret, err := keys.Create(t.Context(), platform(), access.CreateKeyInput{Name: "k", Scopes: []domain.Scope{domain.ScopeAdmin}})
	require.NoError(t, err)
	for range 5 {
		p, err := keys.Authenticate(t.Context(), secret)
		require.NoError(t, err)
		assert.Equal(t, key.ID, p.KeyID)
		assert.True(t, p.IsPlatform())
	}
	assert.EqualValues(t, 1, store.lookups.Load())

	require.NoError(t, keys.Revoke(t.Context(), platform(), key.ID))
	_, err = keys.Authenticate(t.Context(), secret)
	assert.Equal(t, domain.CodeUnauthorized, domain.ErrorCodeOf(err), "refused at once, not after the TTL")
}

func TestConcurrentFirstUseReadsTheDatabaseOnce(t *testing.T) {
	keys, store := newKeys(t, access.DefaultKeyOptions())
	_, secret, err := keys.Create(t.Context(), platform(), access.CreateKeyInput{Name: "k", Scopes: []domain.Scope{domain.ScopeChat}})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			_, err := keys.Authenticate(context.Background(), secret)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, store.lookups.Load(), int64(2), "concurrent misses share one lookup")
}

func TestCacheEntriesExpire(t *testing.T) {
	keys, store := newKeys(t, access.KeyOptions{CacheTTL: time.Millisecond, NegativeTTL: time.Millisecond, CacheSize: 100})
	_, secret, err := keys.Create(t.Context(), platform(), access.CreateKeyInput{Name: "k", Scopes: []domain.Scope{domain.ScopeChat}})
	require.NoError(t, err)
	_, err = keys.Authenticate(t.Context(), secret)
	require.NoError(t, err)
	time.Sleep(5 * time.Millisecond)
	_, err = keys.Authenticate(t.Context(), secret)
	require.NoError(t, err)
	assert.EqualValues(t, 2, store.lookups.Load())
}

func TestAFloodOfRandomKeysCannotGrowTheCache(t *testing.T) {
	keys, store := newKeys(t, access.KeyOptions{CacheTTL: time.Minute, NegativeTTL: time.Minute, CacheSize: 8})
	first := access.NewSecret()
	_, _ = keys.Authenticate(t.Context(), first)
	for range 20 {
		_, _ = keys.Authenticate(t.Context(), access.NewSecret())
	}
	before := store.lookups.Load()
	_, _ = keys.Authenticate(t.Context(), first)
	assert.Equal(t, before+1, store.lookups.Load(), "the bounded cache was emptied, so the first key is read again")
}

func TestExpiredKeysAreRefused(t *testing.T) {
	keys, _ := newKeys(t, access.DefaultKeyOptions())
	soon := time.Now().Add(50 * time.Millisecond)
	_, secret, err := keys.Create(t.Context(), platform(), access.CreateKeyInput{Name: "k", Scopes: []domain.Scope{domain.ScopeChat}, ExpiresAt: &soon})
	require.NoError(t, err)
	_, err = keys.Authenticate(t.Context(), secret)
	require.NoError(t, err)
	time.Sleep(60 * time.Millisecond)
	_, err = keys.Authenticate(t.Context(), secret)
	assert.Equal(t, domain.CodeUnauthorized, domain.ErrorCodeOf(err), "expiry is checked on every use, cached or not")
}

// Create checks what the contract checks, for callers that do not come
// through HTTP (the command line).
func TestCreateValidatesItsInput(t *testing.T) {
	keys, _ := newKeys(t, access.DefaultKeyOptions())
	chat := []domain.Scope{domain.ScopeChat}
	past := time.Now().Add(-time.Minute)
	cases := []struct {
		name  string
		in    access.CreateKeyInput
		field string
	}{
		{"an empty name", access.CreateKeyInput{Name: "", Scopes: chat}, "/name"},
		{"a name over 100 characters", access.CreateKeyInput{Name: strings.Repeat("é", 101), Scopes: chat}, "/name"},
		{"no scope", access.CreateKeyInput{Name: "widget"}, "/scopes"},
		{"an unknown scope", access.CreateKeyInput{Name: "widget", Scopes: []domain.Scope{"root"}}, "/scopes"},
		{"an expiry in the past", access.CreateKeyInput{Name: "widget", Scopes: chat, ExpiresAt: &past}, "/expiresAt"},
	}
	for _, c := range cases {
		t.Run(c.name+" is refused", func(t *testing.T) {
			_, _, err := keys.Create(t.Context(), platform(), c.in)
			var de *domain.Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, domain.CodeValidation, de.Code)
			require.Len(t, de.Fields, 1)
			assert.Equal(t, c.field, de.Fields[0].Field)
		})
	}
	_, secret, err := keys.Create(t.Context(), platform(), access.CreateKeyInput{Name: "widget", Scopes: chat})
	require.NoError(t, err)
	assert.True(t, access.WellFormedSecret(secret))
}
