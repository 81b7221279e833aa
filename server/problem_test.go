package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
)

// brokenKeys fails every authentication the way a bug or a driver would:
// by panicking, or with an error carrying internals.
type brokenKeys struct{ panics bool }

func (b brokenKeys) Authenticate(context.Context, string) (domain.Principal, error) {
	if b.panics {
		panic("nil map write in key cache")
	}
	return domain.Principal{}, errors.New(`pq: relation "api_keys" does not exist at 10.0.0.5:5432`)
}
func (brokenKeys) Create(context.Context, domain.Principal, access.CreateKeyInput) (domain.APIKey, string, error) {
	return domain.APIKey{}, "", nil
}
func (brokenKeys) List(context.Context, domain.Principal, domain.APIKeyFilter, domain.PageRequest) (domain.Page[domain.APIKey], error) {
	return domain.Page[domain.APIKey]{}, nil
}
func (brokenKeys) Get(context.Context, domain.Principal, string) (domain.APIKey, error) {
	return domain.APIKey{}, nil
}
func (brokenKeys) Revoke(context.Context, domain.Principal, string) error { return nil }
func (brokenKeys) Rotate(context.Context, domain.Principal, string) (domain.APIKey, string, error) {
	return domain.APIKey{}, "", nil
}

func TestUnexpectedFailuresAreLogged500sWithoutInternals(t *testing.T) {
	for _, c := range []struct {
		name   string
		keys   brokenKeys
		leaked string
	}{
		{"a panic", brokenKeys{panics: true}, "nil map"},
		{"an unknown error", brokenKeys{}, "10.0.0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			s, err := New(t.Context(), Deps{
				Log: slog.New(slog.NewJSONHandler(&logs, nil)), Keys: c.keys, MaxBodyBytes: 1024,
				Ready: func(context.Context) error { return nil },
			})
			require.NoError(t, err)
			r := httptest.NewRequest("GET", "/api/v1/admin/tenants", nil)
			r.Header.Set("X-Request-Id", "req-42")
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, r)

			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
			var p map[string]any
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p))
			assert.Equal(t, "internal", p["code"])
			assert.Equal(t, "req-42", p["requestId"])
			assert.NotContains(t, w.Body.String(), c.leaked, "no internals in the answer")
			assert.Contains(t, logs.String(), c.leaked, "the cause is in the log")
			assert.Contains(t, logs.String(), `"request_id":"req-42"`)

			// The process survived and serves the next request.
			w = httptest.NewRecorder()
			s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
			assert.Equal(t, http.StatusOK, w.Code)
		})
	}
}

func TestStatusOfEveryCode(t *testing.T) {
	codes := map[domain.ErrorCode]int{
		domain.CodeValidation: 400, domain.CodeMalformedJSON: 400, domain.CodeInvalidTenantID: 400,
		domain.CodeInvalidCursor: 400, domain.CodeUnauthorized: 401, domain.CodeForbidden: 403,
		domain.CodeTenantForbidden: 403, domain.CodeTenantDisabled: 403, domain.CodeNotFound: 404,
		domain.CodeMethodNotAllowed: 405, domain.CodeConflict: 409, domain.CodeVersionConflict: 409,
		domain.CodeKeyRevoked: 409, domain.CodePayloadTooLarge: 413, domain.CodeUnsupportedMediaType: 415,
		domain.CodeUnavailable: 503, domain.CodeInternal: 500,
		domain.CodeMetadataInvalid: 400, domain.CodeInvalidTransition: 409, domain.CodeJobActive: 409,
		domain.CodeMalformedRequest: 400, domain.CodeRequestTimeout: 408, domain.CodeHeaderTooLarge: 431, domain.CodeRateLimited: 429, domain.CodeQuotaExceeded: 429, domain.CodeIdempotencyMismatch: 422,
		domain.CodeDeviceLimit: 403, domain.CodeDeviceMismatch: 403, domain.CodeShareGone: 410,
		domain.CodeSlotInvalid: 400,
	}
	for code, status := range codes {
		assert.Equal(t, status, statusOf(code), code)
	}
}

// A quota's refusal names the quota with its figures: too many bytes is
// 413, too many of anything else 429.
func TestQuotaProblemsNameTheQuota(t *testing.T) {
	s, err := New(t.Context(), Deps{Log: slog.New(slog.DiscardHandler), Keys: brokenKeys{}, MaxBodyBytes: 1024,
		Ready: func(context.Context) error { return nil }})
	require.NoError(t, err)
	for _, tc := range []struct {
		quota  domain.Quota
		status int
	}{
		{domain.QuotaKnowledgeBases, http.StatusTooManyRequests},
		{domain.QuotaChunks, http.StatusTooManyRequests},
		{domain.QuotaStreamsPerKey, http.StatusTooManyRequests},
		{domain.QuotaStoredBytes, http.StatusRequestEntityTooLarge},
		{domain.QuotaIndexMemoryBytes, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.quota.Name(), func(t *testing.T) {
			w := httptest.NewRecorder()
			s.handleError(domain.CheckQuota(tc.quota, 10, 8, 5), s.echo.NewContext(httptest.NewRequest("POST", "/api/v1/admin/kb/documents", nil), w))
			assert.Equal(t, tc.status, w.Code)
			var p map[string]any
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p))
			assert.Equal(t, "quota_exceeded", p["code"])
			assert.EqualValues(t, tc.status, p["status"])
			assert.Equal(t, map[string]any{"name": tc.quota.Name(), "limit": 10.0, "used": 8.0}, p["quota"])
		})
	}
}
