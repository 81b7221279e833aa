package retention_test

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/retention"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

const day = 24 * time.Hour

// fixture is a purger over the real store of a fresh database.
type fixture struct {
	purger *retention.Purger
	store  *pg.Store
	pool   *pgxpool.Pool
	log    *syncBuffer
	// now is when the tests purge: 60 days after the rows were written,
	// so that rows whose time the database sets (a session's updated_at)
	// are 60 days old.
	now time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	pool, err := pg.Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	buf := &syncBuffer{}
	return &fixture{
		purger: retention.New(store, slog.New(slog.NewTextHandler(buf, nil))),
		store:  store, pool: pool, log: buf,
		now: time.Now().UTC().Add(60 * day).Truncate(time.Millisecond),
	}
}

// tenant creates a tenant with the given retention (messageDays 0: kept).
func (f *fixture) tenant(t *testing.T, id domain.TenantID, monitoringDays, messageDays int32) {
	t.Helper()
	ctx := t.Context()
	_, err := f.store.EnsureTenant(ctx, id)
	require.NoError(t, err)
	st, err := f.store.GetSettings(ctx, id)
	require.NoError(t, err)
	st.Retention = domain.Retention{MonitoringDays: monitoringDays}
	if messageDays > 0 {
		st.Retention.MessageDays = &messageDays
	}
	_, err = f.store.UpdateSettings(ctx, st)
	require.NoError(t, err)
}

// monitor records a guardrail hit and a flow start of tenant at at.
func (f *fixture) monitor(t *testing.T, tenant domain.TenantID, at time.Time) {
	t.Helper()
	ctx := t.Context()
	require.NoError(t, f.store.RecordGuardHits(ctx, []domain.GuardHit{{
		TenantID: tenant, SessionID: "ses_x", MessageID: "msg_x", Stage: domain.GuardInput,
		Kind: "high_risk", Category: "legal", Pattern: "lawyer", Action: "transfer", At: at,
	}}))
	require.NoError(t, f.store.RecordFlowEvents(ctx, []domain.FlowEvent{{
		TenantID: tenant, FlowID: "flow_refund", SessionID: domain.NewID(domain.PrefixSession), Kind: domain.FlowStarted, At: at,
	}}))
}

// session creates a session of tenant holding one message per time.
func (f *fixture) session(t *testing.T, tenant domain.TenantID, times ...time.Time) string {
	t.Helper()
	ctx := t.Context()
	ses, err := f.store.CreateSession(ctx, domain.ChatSession{ID: domain.NewID(domain.PrefixSession), TenantID: tenant, Channel: "web"})
	require.NoError(t, err)
	for _, at := range times {
		require.NoError(t, f.store.AddMessage(ctx, domain.SessionMessage{
			ID: domain.NewID(domain.PrefixMessage), TenantID: tenant, SessionID: ses.ID, Role: domain.RoleUser,
			Content: at.Format(time.RFC3339), CreatedAt: at,
		}))
	}
	return ses.ID
}

// monitoring counts tenant's guardrail hits and flow starts, whatever their age.
func (f *fixture) monitoring(t *testing.T, tenant domain.TenantID) (guardHits int, flowStarts int64) {
	t.Helper()
	ctx := t.Context()
	from, to := f.now.Add(-20*365*day), f.now.Add(day)
	gs, err := f.store.GuardStats(ctx, tenant, from, to)
	require.NoError(t, err)
	for _, s := range gs.Stages {
		guardHits += s.Hits
	}
	fs, err := f.store.FlowStats(ctx, tenant, from, to, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	for _, s := range fs.Items {
		flowStarts += s.Starts
	}
	return guardHits, flowStarts
}

// messages is the contents of a session's messages, oldest first; ok is
// false when the session is gone.
func (f *fixture) messages(t *testing.T, tenant domain.TenantID, session string) (contents []string, ok bool) {
	t.Helper()
	page, err := f.store.ListMessages(t.Context(), tenant, session, domain.PageRequest{Limit: 100})
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return nil, false
	}
	require.NoError(t, err)
	for _, m := range page.Items {
		contents = append(contents, m.Content)
	}
	return contents, true
}

// syncBuffer is a log sink safe to read while the purger writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

var _ io.Writer = (*syncBuffer)(nil)

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
