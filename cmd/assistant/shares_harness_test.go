package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// shareLink is a share link as its creator sees it once: id, token, URL.
type shareLink struct {
	e      *env
	tenant string
	id     string
	token  string
	body   map[string]any
}

// share makes a share link of a session with key ("" is the root key).
func (e *env) share(t *testing.T, key, tenant, session string, body map[string]any) *shareLink {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + session + "/shares", key: key, tenant: tenant, body: body})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	m := r.JSON(t)
	require.Equal(t, "/api/v1/admin/shares/"+m["id"].(string), r.Header.Get("Location"))
	return &shareLink{e: e, tenant: tenant, id: m["id"].(string), token: m["token"].(string), body: m}
}

// bind binds a device to the link without an API key.
func (s *shareLink) bind(deviceID string) response {
	return s.e.do(req{method: "POST", path: "/api/v1/share/" + s.token + "/devices", key: "-",
		body: map[string]any{"deviceId": deviceID}})
}

// mustBind binds a device and returns its device token.
func (s *shareLink) mustBind(t *testing.T, deviceID string) string {
	t.Helper()
	r := s.bind(deviceID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)["deviceToken"].(string)
}

// page reads the link's page as deviceID holding deviceToken, without an
// API key.
func (s *shareLink) page(deviceID, deviceToken string) response {
	return s.e.do(req{method: "GET", path: "/api/v1/share/" + s.token, key: "-",
		header: map[string]string{"X-Device-Id": deviceID, "X-Device-Token": deviceToken}})
}

// admin reads the link as the tenant's administrator.
func (s *shareLink) admin(t *testing.T) map[string]any {
	t.Helper()
	r := s.e.do(req{method: "GET", path: "/api/v1/admin/shares/" + s.id, tenant: s.tenant})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.JSON(t)
}
