package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// memTenants and memKBs answer from memory, so the benchmark below measures
// the HTTP side alone: middleware, validation, handler, JSON.
type memTenants struct{}

func (memTenants) Enter(_ context.Context, _ domain.Principal, id domain.TenantID) (domain.Tenant, error) {
	return domain.Tenant{ID: id, Status: domain.TenantActive, Version: 1}, nil
}
func (memTenants) List(context.Context, domain.Principal, domain.TenantFilter, domain.PageRequest) (domain.Page[domain.Tenant], error) {
	return domain.Page[domain.Tenant]{}, nil
}
func (memTenants) Get(context.Context, domain.Principal, domain.TenantID) (domain.Tenant, error) {
	return domain.Tenant{}, nil
}
func (memTenants) Update(context.Context, domain.Principal, domain.TenantID, domain.TenantPatch) (domain.Tenant, error) {
	return domain.Tenant{}, nil
}

type memKBs struct{ kb domain.KnowledgeBase }

func (m memKBs) CreateKnowledgeBase(context.Context, domain.KnowledgeBase) (domain.KnowledgeBase, error) {
	return m.kb, nil
}
func (m memKBs) GetKnowledgeBase(_ context.Context, t domain.TenantID, id string) (domain.KnowledgeBase, error) {
	if t != m.kb.TenantID || id != m.kb.ID {
		return domain.KnowledgeBase{}, domain.Errorf(domain.CodeNotFound, "Knowledge base not found.")
	}
	return m.kb, nil
}
func (m memKBs) ListKnowledgeBases(context.Context, domain.TenantID, domain.PageRequest) (domain.Page[domain.KnowledgeBase], error) {
	return domain.Page[domain.KnowledgeBase]{}, nil
}
func (m memKBs) UpdateKnowledgeBase(context.Context, domain.KnowledgeBase) (domain.KnowledgeBase, error) {
	return m.kb, nil
}
func (m memKBs) DeleteKnowledgeBase(context.Context, domain.TenantID, string) error { return nil }

// authedKeys accepts one secret, as a warm cache would.
type authedKeys struct{ brokenKeys }

func (authedKeys) Authenticate(_ context.Context, secret string) (domain.Principal, error) {
	if secret != "ak_bench" {
		return domain.Principal{}, domain.Errorf(domain.CodeUnauthorized, "no")
	}
	return domain.Principal{KeyID: "key_bench", Scopes: []domain.Scope{domain.ScopeAdmin}}, nil
}

// BenchmarkMiddlewareChain is one authenticated, validated GET through the
// whole chain and handler with the stores in memory: the service's own
// per-request overhead, without PostgreSQL.
func BenchmarkMiddlewareChain(b *testing.B) {
	kb := domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: "acme", Name: "faq", Version: 1,
		CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
	s, err := New(b.Context(), Deps{
		Log: slog.New(slog.NewJSONHandler(io.Discard, nil)), Keys: authedKeys{}, Tenants: memTenants{},
		KnowledgeBases: memKBs{kb: kb}, MaxBodyBytes: 1 << 20, Ready: func(context.Context) error { return nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	path := "/api/v1/admin/kb/knowledge-bases/" + kb.ID
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("X-API-Key", "ak_bench")
		r.Header.Set("X-Tenant-Id", "acme")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
