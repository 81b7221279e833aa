package providerhttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const testKey = "sk-test-9f8e7d6c5b4a39281706abcd"

// Moved from providers/embed/remote with MaskKey.
func TestMaskKey(t *testing.T) {
	cases := map[string]string{
		"":                                "",
		"short":                           "…",
		"sk-proj-Abc123def456ghi789abcd":  "sk-…abcd",
		testKey:                           "sk-…abcd",
		"0123456789abcdefwxyz":            "…wxyz",
		"verylongprefix-0123456789abwxyz": "…wxyz",
	}
	for in, want := range cases {
		got := MaskKey(in)
		assert.Equal(t, want, got, in)
		assert.LessOrEqual(t, len(got), 32)
	}
}

func TestRedact(t *testing.T) {
	assert.Equal(t, "key [redacted] and [redacted]", Redact("key "+testKey+" and "+testKey, testKey))
	assert.Equal(t, "abc stays", Redact("abc stays", "abc"), "keys under 4 characters are left alone")
	assert.Equal(t, "nothing", Redact("nothing", ""))
}

func TestScrub(t *testing.T) {
	p := Provider{Subject: "the test provider", Key: testKey}
	err := p.Scrub(&domain.Error{Code: domain.CodeValidation, Message: "x " + testKey, Err: errors.New("cause " + testKey)})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, err), testKey)
	assert.Contains(t, err.Error(), "[redacted]")

	err = p.Scrub(fmt.Errorf("plain %s", testKey))
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Equal(t, "the test provider failed", domain.ErrorMessage(err))
	assert.NotContains(t, err.Error(), testKey)

	plain := errors.New("nothing secret")
	assert.Same(t, plain, p.Scrub(plain))
	assert.NoError(t, p.Scrub(nil))
	short := Provider{Key: "abc"}
	withShort := errors.New("abc")
	assert.Same(t, withShort, short.Scrub(withShort))
}

func answer(code int, body string) *http.Response {
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader(body))}
}

func TestStatusError(t *testing.T) {
	embed := Provider{Subject: "the embedding provider", NotFound: "this model or endpoint", Key: testKey, QuietErrorMember: true}
	chat := Provider{Subject: "the language model provider", NotFound: "this model, deployment or endpoint", Key: testKey, Timeouts: true}
	cases := []struct {
		p    Provider
		code int
		want string
		kind domain.ErrorCode
	}{
		{embed, 429, "the embedding provider is rate-limiting requests (HTTP 429)", domain.CodeUnavailable},
		{embed, 408, "the embedding provider rejected the request (HTTP 408)", domain.CodeValidation},
		{embed, 504, "the embedding provider failed (HTTP 504)", domain.CodeUnavailable},
		{embed, 500, "the embedding provider failed (HTTP 500)", domain.CodeUnavailable},
		{embed, 501, "the embedding provider failed (HTTP 501)", domain.CodeUnavailable},
		{embed, 401, "the embedding provider refused the API key (HTTP 401)", domain.CodeValidation},
		{embed, 403, "the embedding provider refused the API key (HTTP 403)", domain.CodeValidation},
		{embed, 404, "the embedding provider does not know this model or endpoint (HTTP 404)", domain.CodeValidation},
		{embed, 422, "the embedding provider rejected the request (HTTP 422)", domain.CodeValidation},
		{embed, 302, "the embedding provider answered unexpectedly (HTTP 302)", domain.CodeUnavailable},
		{chat, 429, "the language model provider is rate-limiting requests (HTTP 429)", domain.CodeUnavailable},
		{chat, 408, "the language model provider timed out (HTTP 408)", domain.CodeUnavailable},
		{chat, 504, "the language model provider timed out (HTTP 504)", domain.CodeUnavailable},
		{chat, 502, "the language model provider failed (HTTP 502)", domain.CodeUnavailable},
		{chat, 505, "the language model provider failed (HTTP 505)", domain.CodeUnavailable},
		{chat, 401, "the language model provider refused the API key (HTTP 401)", domain.CodeValidation},
		{chat, 404, "the language model provider does not know this model, deployment or endpoint (HTTP 404)", domain.CodeValidation},
		{chat, 400, "the language model provider rejected the request (HTTP 400)", domain.CodeValidation},
		{chat, 302, "the language model provider answered unexpectedly (HTTP 302)", domain.CodeUnavailable},
	}
	for _, tc := range cases {
		err := tc.p.StatusError(answer(tc.code, ""))
		assert.Equal(t, tc.want, err.Message, "%s %d", tc.p.Subject, tc.code)
		assert.Equal(t, tc.kind, err.Code, "%s %d", tc.p.Subject, tc.code)
		assert.NoError(t, err.Err)
	}

	err := chat.StatusError(answer(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`."}}`))
	assert.Equal(t, "the language model provider refused the API key (HTTP 401): Incorrect API key provided: [redacted].", err.Message)
	err = embed.StatusError(answer(404, `{"error":"model \"x\" not found"}`))
	assert.Equal(t, `the embedding provider does not know this model or endpoint (HTTP 404): model "x" not found`, err.Message)
}

func TestErrorMemberWithoutText(t *testing.T) {
	// Bodies whose "error" member has no text: the quiet reading adds
	// nothing, the default one says "unknown error" when there is a
	// member. Nothing but a JSON error's text is ever echoed: a plain-text
	// or HTML answer, or JSON of another shape, may be whatever the far
	// side holds (issue 24: another service's answer came back through
	// the error text).
	cases := []struct {
		body, quiet, loud string
	}{
		{`{"error":null}`, "", ""},
		{`{"error":""}`, "", ""},
		{`{"error":{"code":5}}`, "", "unknown error"},
		{`{"error":42}`, "", "unknown error"},
		{`{"detail":"no error member"}`, "", ""},
		{"upstream   down\n", "", ""},
		{"<html><body>502</body></html>", "", ""},
		{`{"items":[{"id":"key_1","secret":"x"}]}`, "", ""},
	}
	quiet := Provider{Subject: "s", QuietErrorMember: true}
	loud := Provider{Subject: "s"}
	for _, tc := range cases {
		assert.Equal(t, tc.quiet, quiet.detail(strings.NewReader(tc.body)), tc.body)
		assert.Equal(t, tc.loud, loud.detail(strings.NewReader(tc.body)), tc.body)
		assert.Equal(t, tc.loud, Message(strings.NewReader(tc.body)), tc.body)
	}
}

// The provider's text is sanitised: control and format characters go,
// and it is clipped short.
func TestErrorTextIsSanitised(t *testing.T) {
	got := Message(strings.NewReader(`{"error":"bad\u0000 \u001b[31mmodel\u200b\r\nname ` + strings.Repeat("x", 400) + `"}`))
	assert.True(t, strings.HasPrefix(got, "bad [31mmodel name x"), got)
	assert.LessOrEqual(t, len(got), MaxMessage+len("…"))
	assert.NotContains(t, got, "\x1b")
}

func TestErrorText(t *testing.T) {
	cases := map[string]string{
		`{"error":"model not found"}`:                  "model not found",
		`{"error":{"message":"Rate limit reached"}}`:   "Rate limit reached",
		`{"error":{"type":"server_error"}}`:            "unknown error",
		`{"error":null}`:                               "",
		`{"choices":[]}`:                               "",
		`data: {"error":"not JSON as a whole"}`:        "",
		`{"error":"x","choices":[{"delta":{}}]}`:       "x",
		`{"error":{"message":"","code":"rate_limit"}}`: "unknown error",
	}
	for in, want := range cases {
		assert.Equal(t, want, ErrorText([]byte(in)), in)
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, "a b c", Clip("  a\n\tb   c "))
	long := strings.Repeat("é", MaxMessage) // 2 bytes each
	got := Clip(long)
	require.True(t, strings.HasSuffix(got, "…"))
	assert.LessOrEqual(t, len(strings.TrimSuffix(got, "…")), MaxMessage)
	assert.Equal(t, strings.Repeat("é", MaxMessage/2)+"…", got, "no character is cut")
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"https://api.openai.com/v1", "http://127.0.0.1:11434/", "http://vllm:8000/v1"} {
		assert.Empty(t, CheckBaseURL(u), u)
	}
	bad := map[string]string{
		"":                            "is required",
		"api.openai.com/v1":           "must start with http:// or https://",
		"ftp://host/v1":               "must start with http:// or https://",
		"https:///v1":                 "has no host",
		"https://u:" + testKey + "@h": "must not contain credentials; use the API key",
		"https://host/v1?key=x":       "must not have a query or a fragment",
		"https://host/v1#frag":        "must not have a query or a fragment",
		"https://host/v1?":            "must not have a query or a fragment",
		"https://host/v1#":            "must not have a query or a fragment",
		"http://host:port/":           "is not a URL",
	}
	for u, want := range bad {
		got := CheckBaseURL(u)
		assert.Equal(t, want, got, u)
		assert.NotContains(t, got, testKey)
	}

	assert.Empty(t, CheckAPIKey(""), "keyless servers")
	assert.Empty(t, CheckAPIKey(testKey))
	assert.Equal(t, "contains spaces or control characters", CheckAPIKey(testKey+"\n"))
	assert.Equal(t, "contains spaces or control characters", CheckAPIKey("sk-abc def"))
	assert.Equal(t, "is longer than 500 characters", CheckAPIKey(strings.Repeat("k", MaxKeyLen+1)))

	assert.Empty(t, CheckName("text-embedding-3-small"))
	assert.Equal(t, "is required", CheckName("  "))
	assert.Equal(t, "is longer than 200 characters", CheckName(strings.Repeat("m", MaxNameLen+1)))
}
