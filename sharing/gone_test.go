package sharing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestLinkExpiresAtItsExpiryTime(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, time.Hour, 2)
	b, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)

	f.clock.Advance(time.Hour - time.Millisecond)
	_, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, firstPage)
	require.NoError(t, err, "open until its last moment")
	_, err = f.svc.Bind(ctx, c.Token, "laptop")
	require.NoError(t, err)

	f.clock.Advance(time.Millisecond) // exactly ExpiresAt
	_, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, firstPage)
	assert.Equal(t, domain.CodeShareGone, domain.ErrorCodeOf(err))
	_, err = f.svc.Bind(ctx, c.Token, "tablet")
	assert.Equal(t, domain.CodeShareGone, domain.ErrorCodeOf(err))

	got, err := f.svc.Get(ctx, acme, c.Share.ID)
	require.NoError(t, err)
	assert.Len(t, got.Devices, 2, "no device bound after expiry")
	assert.False(t, got.Active(f.clock.Now()))
}

func TestRevokeClosesTheLinkAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, time.Hour, 2)
	keep := f.share(t, time.Hour, 2)
	b, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)

	f.clock.Advance(time.Minute)
	revokedAt := f.clock.Now()
	require.NoError(t, f.svc.Revoke(ctx, acme, c.Share.ID))

	_, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, firstPage)
	assert.Equal(t, domain.CodeShareGone, domain.ErrorCodeOf(err))
	_, err = f.svc.Bind(ctx, c.Token, "laptop")
	assert.Equal(t, domain.CodeShareGone, domain.ErrorCodeOf(err))
	_, err = f.svc.Bind(ctx, keep.Token, "laptop")
	assert.NoError(t, err, "another link of the session stays open")

	// Revoking again changes nothing: the first revocation time stays.
	f.clock.Advance(time.Minute)
	require.NoError(t, f.svc.Revoke(ctx, acme, c.Share.ID))
	got, err := f.svc.Get(ctx, acme, c.Share.ID)
	require.NoError(t, err)
	require.NotNil(t, got.RevokedAt)
	assert.True(t, got.RevokedAt.Equal(revokedAt), "revoked at %v, want %v", got.RevokedAt, revokedAt)

	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(f.svc.Revoke(ctx, acme, domain.NewID(domain.PrefixShare))))
}

func TestLinksOfADisabledTenantDoNotOpen(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, time.Hour, 2)
	b, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)

	tenant, err := f.store.GetTenant(ctx, acme)
	require.NoError(t, err)
	disabled := domain.TenantDisabled
	_, err = f.store.UpdateTenant(ctx, acme, domain.TenantPatch{Status: &disabled, Version: tenant.Version})
	require.NoError(t, err)

	_, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, firstPage)
	assert.Equal(t, domain.CodeTenantDisabled, domain.ErrorCodeOf(err))
	_, err = f.svc.Bind(ctx, c.Token, "laptop")
	assert.Equal(t, domain.CodeTenantDisabled, domain.ErrorCodeOf(err))
}
