package sharing

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// addMessages stores messages in acme's session, a second apart.
func (f *fixture) addMessages(t *testing.T, contents ...string) {
	t.Helper()
	for i, c := range contents {
		require.NoError(t, f.store.AddMessage(t.Context(), domain.SessionMessage{
			ID: domain.NewID(domain.PrefixMessage), TenantID: acme, SessionID: f.session, Role: domain.RoleUser,
			Content: c, CreatedAt: f.clock.Now().Add(time.Duration(i) * time.Second),
		}))
	}
}

func contents(p Page) []string {
	var out []string
	for _, m := range p.Messages.Items {
		out = append(out, m.Content)
	}
	return out
}

func TestBoundDeviceReadsTheSessionsMessages(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.addMessages(t, "first", "second", "third")
	c := f.share(t, time.Hour, 2)

	b, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)
	assert.Regexp(t, `^sd_[0-9A-Za-z]{43}$`, b.Token)
	assert.Equal(t, "phone-1", b.Device.DeviceID)
	assert.True(t, b.Device.BoundAt.Equal(f.clock.Now()))
	assert.True(t, b.ExpiresAt.Equal(c.Share.ExpiresAt), "the binding lasts as long as the link")

	p, err := f.svc.Read(ctx, c.Token, "phone-1", b.Token, firstPage)
	require.NoError(t, err)
	assert.Equal(t, c.Share.ID, p.Share.ID)
	assert.Equal(t, []string{"first", "second", "third"}, contents(p), "oldest first")

	// Paged.
	p, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, domain.PageRequest{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "second"}, contents(p))
	next, ok := p.Messages.NextPage(2)
	require.True(t, ok)
	p, err = f.svc.Read(ctx, c.Token, "phone-1", b.Token, next)
	require.NoError(t, err)
	assert.Equal(t, []string{"third"}, contents(p))

	got, err := f.svc.Get(ctx, acme, c.Share.ID)
	require.NoError(t, err)
	require.Len(t, got.Devices, 1)
	assert.Equal(t, "phone-1", got.Devices[0].DeviceID)
}

func TestReadChecksTheDeviceToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, time.Hour, 2)
	b, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)
	second, err := f.svc.Bind(ctx, c.Token, "laptop")
	require.NoError(t, err)

	// The token of another device.
	_, err = f.svc.Read(ctx, c.Token, "phone-1", second.Token, firstPage)
	assert.Equal(t, domain.CodeDeviceMismatch, domain.ErrorCodeOf(err))
	// Its own token on another device.
	_, err = f.svc.Read(ctx, c.Token, "phone-2", b.Token, firstPage)
	assert.Equal(t, domain.CodeDeviceMismatch, domain.ErrorCodeOf(err))
	// A token the link never issued, or none.
	for _, tok := range []string{newToken(deviceTokenPrefix), "", c.Token} {
		_, err = f.svc.Read(ctx, c.Token, "phone-1", tok, firstPage)
		assert.Equal(t, domain.CodeForbidden, domain.ErrorCodeOf(err), tok)
	}
	// A device token of another link, even of the same session.
	c2 := f.share(t, time.Hour, 2)
	_, err = f.svc.Read(ctx, c2.Token, "phone-1", b.Token, firstPage)
	assert.Equal(t, domain.CodeForbidden, domain.ErrorCodeOf(err))
	// A link token no link has, and a device token used as a link token.
	for _, tok := range []string{newToken(shareTokenPrefix), b.Token, ""} {
		_, err = f.svc.Read(ctx, tok, "phone-1", b.Token, firstPage)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), tok)
		_, err = f.svc.Bind(ctx, tok, "phone-9")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), tok)
	}
}

func TestTokensOfAnotherTenantOpenOnlyTheirOwnSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	f.addMessages(t, "acme's secret")
	mine := f.share(t, time.Hour, 2)
	theirs, err := f.svc.Create(ctx, CreateInput{Tenant: other, SessionID: f.otherSession})
	require.NoError(t, err)
	theirDevice, err := f.svc.Bind(ctx, theirs.Token, "phone-1")
	require.NoError(t, err)

	p, err := f.svc.Read(ctx, theirs.Token, "phone-1", theirDevice.Token, firstPage)
	require.NoError(t, err)
	assert.Equal(t, other, p.Share.TenantID)
	assert.Equal(t, f.otherSession, p.Share.SessionID)
	assert.Empty(t, p.Messages.Items, "the other tenant's page shows its own, empty, session")

	// Their device token does not open acme's link, even with the same device id.
	_, err = f.svc.Read(ctx, mine.Token, "phone-1", theirDevice.Token, firstPage)
	assert.Equal(t, domain.CodeForbidden, domain.ErrorCodeOf(err))

	// Acme's admin calls do not reach the other tenant's link.
	_, err = f.svc.Get(ctx, acme, theirs.Share.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(f.svc.Revoke(ctx, acme, theirs.Share.ID)))
	_, err = f.svc.Read(ctx, theirs.Token, "phone-1", theirDevice.Token, firstPage)
	assert.NoError(t, err, "acme's revoke left the other tenant's link open")
}

func TestBindRefusesARepeatAndDevicesPastTheLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := f.share(t, time.Hour, 2)
	_, err := f.svc.Bind(ctx, c.Token, "phone-1")
	require.NoError(t, err)

	_, err = f.svc.Bind(ctx, c.Token, "phone-1")
	assert.Equal(t, domain.CodeConflict, domain.ErrorCodeOf(err))
	_, err = f.svc.Bind(ctx, c.Token, "laptop")
	require.NoError(t, err)
	_, err = f.svc.Bind(ctx, c.Token, "tablet")
	assert.Equal(t, domain.CodeDeviceLimit, domain.ErrorCodeOf(err))

	got, err := f.svc.Get(ctx, acme, c.Share.ID)
	require.NoError(t, err)
	var devices []string
	for _, d := range got.Devices {
		devices = append(devices, d.DeviceID)
	}
	assert.ElementsMatch(t, []string{"phone-1", "laptop"}, devices)
}

func TestConcurrentBindsKeepTheDeviceLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.share(t, time.Hour, 3)
	const n = 12
	codes := make([]domain.ErrorCode, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := f.svc.Bind(t.Context(), c.Token, "device-"+string(rune('a'+i)))
			if err != nil {
				codes[i] = domain.ErrorCodeOf(err)
			}
		})
	}
	wg.Wait()
	bound, limited := 0, 0
	for _, code := range codes {
		switch code {
		case "":
			bound++
		case domain.CodeDeviceLimit:
			limited++
		default:
			t.Errorf("unexpected error code %s", code)
		}
	}
	assert.Equal(t, 3, bound)
	assert.Equal(t, n-3, limited)
	got, err := f.svc.Get(t.Context(), acme, c.Share.ID)
	require.NoError(t, err)
	assert.Len(t, got.Devices, 3)
}
