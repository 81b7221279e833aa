package outbound

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestClassOfEachRefusedNetwork(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":            "loopback",
		"127.255.0.9":          "loopback",
		"::1":                  "loopback",
		"::ffff:127.0.0.1":     "loopback", // IPv4-mapped
		"10.1.2.3":             "private",
		"172.16.0.1":           "private",
		"172.31.255.255":       "private",
		"192.168.1.1":          "private",
		"::ffff:192.168.1.1":   "private",
		"169.254.169.254":      "link-local", // cloud metadata
		"fe80::1":              "link-local",
		"fe80::1%eth0":         "link-local",
		"100.64.0.1":           "carrier-grade NAT",
		"100.127.255.255":      "carrier-grade NAT",
		"0.0.0.0":              "unspecified",
		"0.1.2.3":              "unspecified",
		"::":                   "unspecified",
		"224.0.0.1":            "multicast",
		"ff02::1":              "multicast",
		"fc00::1":              "unique local",
		"fd12:3456::1":         "unique local",
		"64:ff9b::7f00:1":      "loopback", // NAT64 of 127.0.0.1
		"255.255.255.255":      "reserved",
		"8.8.8.8":              "",
		"1.1.1.1":              "",
		"100.128.0.1":          "",
		"172.32.0.1":           "",
		"2606:4700:4700::1111": "",
		"::ffff:8.8.8.8":       "",
		"64:ff9b::808:808":     "",
		"2001:4860:4860::8888": "",
		"2001:db8::1":          "documentation",
		"192.0.2.10":           "documentation",
		"198.18.0.1":           "benchmarking",
		"fec0::1":              "site-local",
	}
	for in, want := range cases {
		assert.Equal(t, want, Class(netip.MustParseAddr(in)), in)
	}
}

func TestParseAllowList(t *testing.T) {
	a, err := ParseAllowList(" ollama:11434, 10.20.0.0/16 ,, [fd00::5]:8000,vllm ")
	require.NoError(t, err)
	assert.Equal(t, "ollama:11434,[fd00::5]:8000,vllm,10.20.0.0/16", a.String())
	assert.True(t, a.allowsHost("OLLAMA", "11434"))
	assert.False(t, a.allowsHost("ollama", "80"), "another port")
	assert.True(t, a.allowsHost("vllm", "8000"), "no port: every port")
	assert.True(t, a.allowsAddr(netip.MustParseAddr("10.20.3.4"), "1"))
	assert.True(t, a.allowsAddr(netip.MustParseAddr("::ffff:10.20.3.4"), "1"))
	assert.False(t, a.allowsAddr(netip.MustParseAddr("10.21.0.1"), "1"))
	assert.True(t, a.allowsAddr(netip.MustParseAddr("fd00::5"), "8000"))
	empty, err := ParseAllowList("")
	require.NoError(t, err)
	assert.True(t, empty.Empty())
	for _, bad := range []string{"10.0.0.0/33", "host:port", "a b", "http://x/"} {
		_, err := ParseAllowList(bad)
		assert.Error(t, err, bad)
	}
}

// A local server is refused at dial time, before any byte is sent; the
// allow list and the trusted client reach it.
func TestGuardedClientRefusesLoopbackAtDialTime(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		_, _ = io.WriteString(w, "inside")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))

	_, err := New(Options{}).For(false).Get(srv.URL)
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.Equal(t, "loopback", refused.Class)
	// By name too: "localhost" resolves to loopback, and is refused after DNS.
	_, err = New(Options{}).For(false).Get("http://localhost:" + port + "/")
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.Zero(t, hits, "nothing reached the server")

	byNet, _ := ParseAllowList("127.0.0.0/8")
	byName, _ := ParseAllowList("localhost:" + port)
	for name, c := range map[string]*http.Client{
		"allowed network": New(Options{Allow: byNet}).For(false),
		"trusted":         New(Options{}).For(true),
	} {
		resp, err := c.Get(srv.URL)
		require.NoError(t, err, name)
		_ = resp.Body.Close()
	}
	resp, err := New(Options{Allow: byName}).For(false).Get("http://localhost:" + port + "/")
	require.NoError(t, err, "allowed by name")
	_ = resp.Body.Close()
	assert.Equal(t, 3, hits)
}

// Redirects are handed back, never followed: the far side cannot pick the
// next address.
func TestNoRedirectIsFollowed(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the redirect was followed")
	}))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL+"/api/v1/admin/api-keys", http.StatusFound))
	defer redirect.Close()
	for _, trusted := range []bool{false, true} {
		allow, _ := ParseAllowList("127.0.0.0/8")
		resp, err := New(Options{Allow: allow}).For(trusted).Get(redirect.URL)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusFound, resp.StatusCode)
	}
}

func TestCheckBaseURL(t *testing.T) {
	allow, _ := ParseAllowList("ollama:11434,10.9.0.0/16")
	c := New(Options{Allow: allow})
	refused := map[string]string{
		"http://127.0.0.1:8080/v1":      "loopback",
		"http://[::1]/v1":               "loopback",
		"http://[::ffff:127.0.0.1]/v1":  "loopback",
		"http://localhost:11434":        "loopback",
		"http://api.localhost/v1":       "loopback",
		"http://169.254.169.254/latest": "link-local",
		"http://10.0.0.1/v1":            "private",
		"http://100.64.1.1/v1":          "carrier-grade NAT",
		"http://0.0.0.0:8080/":          "unspecified",
		"http://[fd00::1]/":             "unique local",
		"http://[fe80::1%25eth0]/":      "link-local",
	}
	for u, class := range refused {
		err := c.CheckBaseURL(u, false, "/baseUrl")
		require.Error(t, err, u)
		var de *domain.Error
		require.True(t, errors.As(err, &de))
		assert.Equal(t, domain.CodeValidation, de.Code)
		require.Len(t, de.Fields, 1)
		assert.Equal(t, "/baseUrl", de.Fields[0].Field)
		assert.Contains(t, de.Fields[0].Message, class, u)
		assert.NotContains(t, de.Error(), u, "the URL is not repeated")
		assert.NoError(t, c.CheckBaseURL(u, true, "/baseUrl"), "a platform key may: %s", u)
	}
	for _, u := range []string{"https://api.openai.com/v1", "http://ollama:11434", "http://10.9.1.2:8000/v1", "http://vllm:8000/v1"} {
		assert.NoError(t, c.CheckBaseURL(u, false, "/baseUrl"), u)
	}
	// Names are judged when dialled (after DNS), not here.
	assert.NoError(t, c.CheckBaseURL("http://ollama:80", false, "/baseUrl"))
}
