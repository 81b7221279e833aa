package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

func TestClientAddressIsTheConnectionsPeer(t *testing.T) {
	for _, c := range []struct{ remote, forwarded, want string }{
		{"203.0.113.7:51234", "198.51.100.1", "203.0.113.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::9]:443", "", "2001:db8:1:2::/64"},
		{"not an address", "", "not an address"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/share/x", nil)
		r.RemoteAddr = c.remote
		r.Header.Set("X-Forwarded-For", c.forwarded)
		assert.Equal(t, c.want, clientAddress(r), c.remote)
	}
}

func TestLoggedPathHidesShareTokens(t *testing.T) {
	e := echo.New()
	for _, c := range []struct{ path, route, want string }{
		{"/api/v1/share/sh_secret", "/api/v1/share/:shareToken", "/api/v1/share/:shareToken"},
		{"/api/v1/share/sh_secret/devices", "/api/v1/share/:shareToken/devices", "/api/v1/share/:shareToken/devices"},
		{"/api/v1/share/sh_secret/nowhere", "", "/api/v1/share/[redacted]"},
		{"/api/v1/admin/shares/shr_1", "/api/v1/admin/shares/:shareId", "/api/v1/admin/shares/shr_1"},
	} {
		ctx := e.NewContext(httptest.NewRequest(http.MethodGet, c.path, nil), httptest.NewRecorder())
		ctx.SetPath(c.route)
		assert.Equal(t, c.want, loggedPath(ctx), c.path)
	}
}
