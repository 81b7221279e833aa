package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// sharedQuestion is covered by the FAQ, so the reply is the model's.
const sharedQuestion = "How long do refunds take to reach my payment method?"

// sharedConversation is a tenant on untouched defaults with the FAQ
// indexed and an OpenAI-compatible model that reasons before it answers,
// and one session holding one exchange.
func sharedConversation(t *testing.T, tweak ...func(*config.Config)) (*env, *chat) {
	t.Helper()
	e := newEnv(t, tweak...)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	useModel(t, e, "acme", fakeStreamingModel(t, 0,
		"<think>The refund policy answers this.</think>", "Refunds reach your payment method within three working days [1].").URL)
	c := e.newChat("acme", nil)
	reply := c.send(t, sharedQuestion)
	require.Equal(t, false, reply["shouldTransfer"], "the FAQ covers the question: %v", reply)
	return e, c
}

// The "done when": a share link opened on one device, refused on a
// third device when maxDevices is 2, refused with a stolen device token
// from another device id, and gone after a revoke, through the HTTP API
// with every answer checked against the contract.
func TestShareLinkOpensOnBoundDevicesOnly(t *testing.T) {
	e, c := sharedConversation(t)
	_, chatKey := e.createKey(ptr("acme"), "chat")
	s := e.share(t, chatKey, "acme", c.session, nil)

	t.Run("the link is the tenant's front end, /share/ and the token, open 7 days to 2 devices by default", func(t *testing.T) {
		assert.Equal(t, "http://localhost:3000/share/"+s.token, s.body["url"])
		assert.Regexp(t, `^sh_[0-9A-Za-z]{43}$`, s.token)
		assert.EqualValues(t, 2, s.body["maxDevices"])
		created, err := time.Parse(time.RFC3339Nano, s.body["createdAt"].(string))
		require.NoError(t, err)
		expires, err := time.Parse(time.RFC3339Nano, s.body["expiresAt"].(string))
		require.NoError(t, err)
		assert.Equal(t, 7*24*time.Hour, expires.Sub(created))
		assert.True(t, strings.HasSuffix(s.body["expiresAt"].(string), "Z"), "UTC: %s", s.body["expiresAt"])
	})

	phone := s.mustBind(t, "phone-7c1e4f2a")
	t.Run("a bound device reads the dialogue, answer and thought apart, in UTC", func(t *testing.T) {
		r := s.page("phone-7c1e4f2a", phone)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "no-store", r.Header.Get("Cache-Control"))
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 2)
		question, reply := items[0].(map[string]any), items[1].(map[string]any)
		assert.Equal(t, "user", question["role"])
		assert.Equal(t, sharedQuestion, question["text"])
		assert.Nil(t, question["answer"])
		assert.Equal(t, "assistant", reply["role"])
		assert.Nil(t, reply["text"])
		assert.Equal(t, "Refunds reach your payment method within three working days [1].", reply["answer"])
		assert.Equal(t, "The refund policy answers this.", reply["thought"])
		require.NotEmpty(t, reply["sources"])
		assert.Equal(t, "faq.txt", reply["sources"].([]any)[0].(map[string]any)["documentName"])
		for _, it := range items {
			assert.True(t, strings.HasSuffix(it.(map[string]any)["createdAt"].(string), "Z"), "UTC: %v", it)
		}
	})

	laptop := s.mustBind(t, "laptop-9b3d4e5f")
	t.Run("a third device is refused when maxDevices is 2", func(t *testing.T) {
		r := s.bind("tablet-8a6b0c2d")
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
		assert.Equal(t, "device_limit", r.Code(t))
	})
	t.Run("a stolen device token is refused on another device", func(t *testing.T) {
		for _, thief := range []string{"tablet-8a6b0c2d", "phone-7c1e4f2a"} {
			r := s.page(thief, laptop)
			require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
			assert.Equal(t, "device_mismatch", r.Code(t))
		}
	})
	t.Run("a device token the link never issued is refused", func(t *testing.T) {
		r := s.page("phone-7c1e4f2a", "sd_"+strings.Repeat("A", 43))
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
		assert.Equal(t, "forbidden", r.Code(t))
	})
	t.Run("a bound device cannot be bound again", func(t *testing.T) {
		r := s.bind("phone-7c1e4f2a")
		require.Equal(t, http.StatusConflict, r.Status, "%s", r.Body)
		assert.Equal(t, "conflict", r.Code(t))
		assert.Equal(t, http.StatusOK, s.page("phone-7c1e4f2a", phone).Status, "its first token still works")
	})
	t.Run("an unknown link is 404", func(t *testing.T) {
		ghost := &shareLink{e: e, token: "sh_" + strings.Repeat("Z", 43)}
		assert.Equal(t, http.StatusNotFound, ghost.page("phone-7c1e4f2a", phone).Status)
		assert.Equal(t, http.StatusNotFound, ghost.bind("phone-7c1e4f2a").Status)
	})
	t.Run("the administrator sees the link and its devices, never a token", func(t *testing.T) {
		got := s.admin(t)
		assert.Equal(t, true, got["active"])
		assert.Nil(t, got["revokedAt"])
		assert.Equal(t, []any{"phone-7c1e4f2a", "laptop-9b3d4e5f"}, deviceIDs(got))
		r := e.do(req{method: "GET", path: "/api/v1/admin/shares?sessionId=" + c.session, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.NotContains(t, string(r.Body), s.token)
		assert.Len(t, r.JSON(t)["items"], 1)
	})

	t.Run("a revoked link is gone at once, for bound devices too", func(t *testing.T) {
		r := e.do(req{method: "DELETE", path: "/api/v1/admin/shares/" + s.id, tenant: "acme"})
		require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
		for _, r := range []response{s.page("phone-7c1e4f2a", phone), s.page("laptop-9b3d4e5f", laptop), s.bind("tablet-8a6b0c2d")} {
			require.Equal(t, http.StatusGone, r.Status, "%s", r.Body)
			assert.Equal(t, "share_gone", r.Code(t))
		}
		revokedAt := s.admin(t)["revokedAt"]
		require.NotNil(t, revokedAt)
		r = e.do(req{method: "DELETE", path: "/api/v1/admin/shares/" + s.id, tenant: "acme"})
		require.Equal(t, http.StatusNoContent, r.Status, "revoking twice is a no-op: %s", r.Body)
		assert.Equal(t, revokedAt, s.admin(t)["revokedAt"], "the first revocation's time stays")
		assert.Equal(t, false, s.admin(t)["active"])
	})

	t.Run("no token reaches the logs", func(t *testing.T) {
		logs := e.logs.String()
		for _, secret := range []string{s.token, phone, laptop} {
			assert.NotContains(t, logs, secret)
		}
		assert.Contains(t, logs, `"path":"/api/v1/share/:shareToken"`, "the route template stands in for the path")
		assert.Contains(t, logs, `"path":"/api/v1/share/:shareToken/devices"`)
	})
}

// deviceIDs lists the device ids of an admin view of a link.
func deviceIDs(share map[string]any) []any {
	var out []any
	for _, d := range share["devices"].([]any) {
		out = append(out, d.(map[string]any)["deviceId"])
	}
	return out
}

// An expired link is gone; the listing's active filter tells open links
// from closed ones.
func TestShareLinkExpires(t *testing.T) {
	e, c := sharedConversation(t)
	open := e.share(t, "", "acme", c.session, map[string]any{"expiresInSeconds": 3600, "maxDevices": 1})
	expiring := e.share(t, "", "acme", c.session, map[string]any{"expiresInSeconds": 60})
	token := expiring.mustBind(t, "phone-1")
	require.Equal(t, http.StatusOK, expiring.page("phone-1", token).Status)

	// The clock cannot be moved in a running service, so the link's expiry
	// is: as if its 60 seconds had passed.
	_, err := e.db.Exec(context.Background(), "UPDATE share_links SET expires_at = now() - interval '1 second' WHERE id = $1", expiring.id)
	require.NoError(t, err)

	r := expiring.page("phone-1", token)
	require.Equal(t, http.StatusGone, r.Status, "%s", r.Body)
	assert.Equal(t, "share_gone", r.Code(t))
	assert.Contains(t, string(r.Body), "expired")
	assert.Equal(t, http.StatusGone, expiring.bind("phone-2").Status)

	list := func(query string) []string {
		r := e.do(req{method: "GET", path: "/api/v1/admin/shares" + query, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var ids []string
		for _, it := range r.JSON(t)["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		return ids
	}
	assert.Equal(t, []string{expiring.id, open.id}, list(""), "newest first, closed ones included")
	assert.Equal(t, []string{open.id}, list("?active=true"))
	assert.Equal(t, []string{expiring.id}, list("?active=false"))
	assert.Equal(t, []string{expiring.id}, list("?limit=1"), "paged")
}

// The link's URL is the tenant's frontend_base_url when it sets one.
func TestShareLinkURLFollowsTheTenantsFrontEnd(t *testing.T) {
	e := newEnv(t)
	c := e.newChat("acme", nil)
	r := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	settings := r.JSON(t)
	r = e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: map[string]any{
		"transferConfidenceThreshold": settings["transferConfidenceThreshold"], "minHits": settings["minHits"],
		"minTopScore": settings["minTopScore"], "minEvidenceTokens": settings["minEvidenceTokens"],
		"retrievalScoreThreshold": settings["retrievalScoreThreshold"], "frontend_base_url": "https://help.example.com/cs/",
		"kb_vector_log_enabled": false, "kb_vector_log_path": settings["kb_vector_log_path"], "version": settings["version"],
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s := e.share(t, "", "acme", c.session, nil)
	assert.Equal(t, "https://help.example.com/cs/share/"+s.token, s.body["url"])
}

// Creating a link takes a chat or an admin key; administering links takes
// an admin key; another tenant's session or link is 404 like one that
// does not exist.
func TestShareLinkScopesAndTenants(t *testing.T) {
	e := newEnv(t)
	c := e.newChat("acme", nil)
	_, adminKey := e.createKey(ptr("acme"), "admin")
	_, chatKey := e.createKey(ptr("acme"), "chat")
	_, otherKey := e.createKey(ptr("globex"), "admin", "chat")
	s := e.share(t, adminKey, "acme", c.session, nil)
	e.share(t, chatKey, "acme", c.session, nil)

	t.Run("a chat key does not administer links", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/shares", key: chatKey, tenant: "acme"})
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
		assert.Equal(t, "forbidden", r.Code(t))
	})
	t.Run("another tenant's session and link are not found", func(t *testing.T) {
		for _, r := range []response{
			e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + c.session + "/shares", key: otherKey, tenant: "globex", body: map[string]any{}}),
			e.do(req{method: "GET", path: "/api/v1/admin/shares/" + s.id, key: otherKey, tenant: "globex"}),
			e.do(req{method: "DELETE", path: "/api/v1/admin/shares/" + s.id, key: otherKey, tenant: "globex"}),
		} {
			require.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
			assert.Equal(t, "not_found", r.Code(t))
		}
		r := e.do(req{method: "GET", path: "/api/v1/admin/shares?sessionId=" + c.session, key: otherKey, tenant: "globex"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Empty(t, r.JSON(t)["items"])
		assert.Equal(t, true, s.admin(t)["active"], "the link is untouched")
	})
	t.Run("a disabled tenant's links are closed", func(t *testing.T) {
		token := s.mustBind(t, "phone-1")
		r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "disabled"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		r = s.page("phone-1", token)
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
		assert.Equal(t, "tenant_disabled", r.Code(t))
	})
}

// withDefaultShareRateLimits runs the env on the share page's default rate
// limits (config.Load's); the rest of the harness runs without limits.
func withDefaultShareRateLimits(t *testing.T) func(*config.Config) {
	defaults, err := config.Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}))
	require.NoError(t, err)
	return func(c *config.Config) {
		c.ShareRateLimitPerShare, c.ShareRateLimitPerAddress = defaults.ShareRateLimitPerShare, defaults.ShareRateLimitPerAddress
	}
}

// The share page is rate-limited per link and per client address on the
// defaults: a burst on one link is refused while another link still
// opens, until the address's own limit refuses that too.
func TestSharePageIsRateLimitedPerLinkAndPerAddress(t *testing.T) {
	e := newEnv(t, withDefaultShareRateLimits(t))
	c := e.newChat("acme", nil)
	type opened struct {
		s            *shareLink
		device, auth string
	}
	links := make([]opened, 3)
	for i := range links {
		s := e.share(t, "", "acme", c.session, nil)
		links[i] = opened{s: s, device: "phone", auth: s.mustBind(t, "phone")}
	}
	// burst reads a page until it is refused, and returns the refusal.
	burst := func(o opened) (response, int) {
		for sent := 1; sent <= 3*e.cfg.ShareRateLimitPerAddress; sent++ {
			if r := o.s.page(o.device, o.auth); r.Status != http.StatusOK {
				return r, sent
			}
		}
		return response{}, 0
	}

	limited, sent := burst(links[0])
	require.Equal(t, http.StatusTooManyRequests, limited.Status, "%s", limited.Body)
	assert.GreaterOrEqual(t, sent, e.cfg.ShareRateLimitPerShare-1, "the link's bucket holds a minute's worth (one bind spent a token)")
	assert.Equal(t, "rate_limited", limited.Code(t))
	assert.Contains(t, string(limited.Body), "This share link")
	assert.NotEmpty(t, limited.Header.Get("Retry-After"))

	limited, _ = burst(links[1])
	require.Equal(t, http.StatusTooManyRequests, limited.Status, "%s", limited.Body)
	assert.Contains(t, string(limited.Body), "This share link", "the second link's own bucket empties first")
	limited, _ = burst(links[2])
	require.Equal(t, http.StatusTooManyRequests, limited.Status, "%s", limited.Body)
	assert.Contains(t, string(limited.Body), "This client address", "then the address's")

	r := e.do(req{method: "GET", path: "/api/v1/admin/shares", tenant: "acme"})
	assert.Equal(t, http.StatusOK, r.Status, "API-key operations are not held back by the share page's limits")
}

// A revoke on one replica closes the link on every other at once: no
// replica caches a link.
func TestShareRevokeAppliesOnEveryReplica(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	c := one.newChat("acme", nil)
	s := one.share(t, "", "acme", c.session, nil)
	token := s.mustBind(t, "phone-1")
	onTwo := &shareLink{e: two, tenant: "acme", id: s.id, token: s.token}
	require.Equal(t, http.StatusOK, onTwo.page("phone-1", token).Status, "the other replica opens the link")

	r := two.do(req{method: "DELETE", path: "/api/v1/admin/shares/" + s.id, tenant: "acme"})
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	r = s.page("phone-1", token)
	require.Equal(t, http.StatusGone, r.Status, "%s", r.Body)
	assert.Equal(t, "share_gone", r.Code(t))
}
