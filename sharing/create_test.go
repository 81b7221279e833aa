package sharing

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestCreateTakesDefaultsAndStoresOnlyTheTokensHash(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, 0, 0)

	assert.Regexp(t, `^sh_[0-9A-Za-z]{43}$`, c.Token)
	assert.Equal(t, "https://chat.example.com/share/"+c.Token, c.URL)
	assert.True(t, domain.ValidID(domain.PrefixShare, c.Share.ID), c.Share.ID)

	got, err := f.svc.Get(ctx, acme, c.Share.ID)
	require.NoError(t, err)
	assert.Equal(t, f.session, got.SessionID)
	assert.Equal(t, domain.DefaultShareMaxDevices, got.MaxDevices)
	assert.Equal(t, "key_admin", got.CreatedBy)
	assert.True(t, got.CreatedAt.Equal(f.clock.Now()), "created at the service's clock")
	assert.True(t, got.ExpiresAt.Equal(f.clock.Now().Add(domain.DefaultShareTTL)))
	assert.Nil(t, got.RevokedAt)
	assert.Empty(t, got.Devices)

	var hash []byte
	var stored int
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT token_hash FROM share_links WHERE id = $1`, c.Share.ID).Scan(&hash))
	want := sha256.Sum256([]byte(c.Token))
	assert.Equal(t, want[:], hash, "the link keeps the token's SHA-256")
	require.NoError(t, f.pool.QueryRow(ctx,
		`SELECT count(*) FROM share_links WHERE strpos(concat_ws(' ', id, session_id, created_by, encode(token_hash, 'escape')), $1) > 0`,
		c.Token).Scan(&stored))
	assert.Zero(t, stored, "the token itself is stored nowhere")
}

func TestCreateRefusesTTLAndDeviceCountsOutOfRange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		name       string
		ttl        time.Duration
		maxDevices int
		field      string
	}{
		{"TTL under a minute", 59 * time.Second, 1, "/expiresInSeconds"},
		{"negative TTL", -time.Hour, 1, "/expiresInSeconds"},
		{"TTL over 90 days", domain.MaxShareTTL + time.Second, 1, "/expiresInSeconds"},
		{"more than 10 devices", time.Hour, domain.MaxShareMaxDevices + 1, "/maxDevices"},
		{"negative device count", time.Hour, -1, "/maxDevices"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Create(t.Context(), CreateInput{Tenant: acme, SessionID: f.session, TTL: c.ttl, MaxDevices: c.maxDevices})
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			var e *domain.Error
			require.ErrorAs(t, err, &e)
			require.Len(t, e.Fields, 1)
			assert.Equal(t, c.field, e.Fields[0].Field)
		})
	}
	page, err := f.svc.List(t.Context(), acme, domain.ShareFilter{}, firstPage)
	require.NoError(t, err)
	assert.Empty(t, page.Items, "nothing refused was stored")

	// The bounds themselves are accepted.
	lo := f.share(t, domain.MinShareTTL, 1)
	hi := f.share(t, domain.MaxShareTTL, domain.MaxShareMaxDevices)
	assert.True(t, lo.Share.ExpiresAt.Equal(f.clock.Now().Add(time.Minute)))
	assert.Equal(t, domain.MaxShareMaxDevices, hi.Share.MaxDevices)
}

func TestCreateOfAnotherTenantsSessionIsNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, id := range []string{f.otherSession, domain.NewID(domain.PrefixSession)} {
		_, err := f.svc.Create(t.Context(), CreateInput{Tenant: acme, SessionID: id})
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), id)
	}
	page, err := f.svc.List(t.Context(), acme, domain.ShareFilter{}, firstPage)
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

func TestCreateUsesTheTenantsFrontendBase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	st, err := f.store.GetSettings(ctx, acme)
	require.NoError(t, err)
	base := "https://help.acme.example/app//"
	st.FrontendBaseURL = &base
	_, err = f.store.UpdateSettings(ctx, st)
	require.NoError(t, err)

	c := f.share(t, time.Hour, 1)
	assert.Equal(t, "https://help.acme.example/app/share/"+c.Token, c.URL)

	theirs, err := f.svc.Create(ctx, CreateInput{Tenant: other, SessionID: f.otherSession})
	require.NoError(t, err)
	assert.Equal(t, "https://chat.example.com/share/"+theirs.Token, theirs.URL, "another tenant keeps the default")
}

func TestListIsPerTenantNewestFirstAndFiltersByState(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	short := f.share(t, time.Minute, 1)
	revoked := f.share(t, time.Hour, 1)
	open := f.share(t, time.Hour, 1)
	require.NoError(t, f.svc.Revoke(ctx, acme, revoked.Share.ID))
	_, err := f.svc.Create(ctx, CreateInput{Tenant: other, SessionID: f.otherSession})
	require.NoError(t, err)
	f.clock.Advance(2 * time.Minute) // short has expired

	ids := func(filter domain.ShareFilter) []string {
		page, err := f.svc.List(ctx, acme, filter, firstPage)
		require.NoError(t, err)
		var out []string
		for _, sh := range page.Items {
			out = append(out, sh.ID)
		}
		return out
	}
	yes, no := true, false
	assert.Equal(t, []string{open.Share.ID, revoked.Share.ID, short.Share.ID}, ids(domain.ShareFilter{}))
	assert.Equal(t, []string{open.Share.ID}, ids(domain.ShareFilter{Active: &yes}), "open at the service's clock")
	assert.Equal(t, []string{revoked.Share.ID, short.Share.ID}, ids(domain.ShareFilter{Active: &no}))
	theirs := f.otherSession
	assert.Empty(t, ids(domain.ShareFilter{SessionID: &theirs}), "the other tenant's link is not listed")
	mine := f.session
	assert.Len(t, ids(domain.ShareFilter{SessionID: &mine}), 3)
}
