package sharing

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// The tenants every test has, and the service's default share-link base.
const (
	acme        domain.TenantID = "acme"
	other       domain.TenantID = "other"
	defaultBase                 = "https://chat.example.com/"
)

// clock is the service's time, moved by the tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fixture is the service over the real store of a fresh database holding
// both tenants and a session of each.
type fixture struct {
	svc   *Service
	store *pg.Store
	pool  *pgxpool.Pool
	clock *clock
	// session is acme's, otherSession the other tenant's.
	session, otherSession string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	pool, err := pg.Open(ctx, pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	f := &fixture{store: store, pool: pool,
		clock: &clock{now: time.Now().UTC().Truncate(time.Millisecond)}}
	for _, id := range []domain.TenantID{acme, other} {
		_, err := store.EnsureTenant(ctx, id)
		require.NoError(t, err)
		ses, err := store.CreateSession(ctx, domain.ChatSession{ID: domain.NewID(domain.PrefixSession), TenantID: id, Channel: "web"})
		require.NoError(t, err)
		if id == acme {
			f.session = ses.ID
		} else {
			f.otherSession = ses.ID
		}
	}
	f.svc = New(store, store, store, defaultBase)
	f.svc.now = f.clock.Now
	return f
}

// share makes a link of acme's session with in's TTL and device count.
func (f *fixture) share(t *testing.T, ttl time.Duration, maxDevices int) Created {
	t.Helper()
	c, err := f.svc.Create(t.Context(), CreateInput{Tenant: acme, SessionID: f.session, CreatedBy: "key_admin", TTL: ttl, MaxDevices: maxDevices})
	require.NoError(t, err)
	return c
}

// firstPage asks for up to 50 messages.
var firstPage = domain.PageRequest{Limit: 50}
