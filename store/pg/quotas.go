package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

var _ domain.QuotaStore = (*Store)(nil)

// WithQuotas makes the store hold tenants to p's quotas in the writes that
// count against them: creating knowledge bases, documents, intent rules,
// script flows, prompt and decomposition templates, and replacing a
// document's chunks. Without it nothing is limited (tests of the store
// alone).
func WithQuotas(p domain.QuotaPolicy) Option { return func(s *Store) { s.quotas = p } }

// Quota lock families: each kind of counted write serialises with the
// writes of its kind in the tenant (an upload with uploads, an indexing
// with indexings), so that a count cannot pass its quota by writes made
// at once.
const (
	lockKnowledgeBases = "knowledge_bases"
	lockDocuments      = "documents"
	lockChunks         = "chunks"
	lockIntentRules    = "intent_rules"
	lockScriptFlows    = "script_flows"
	lockPrompts        = "prompt_templates"
	lockDecomposition  = "decomposition_templates"
)

// TenantHoldings implements domain.QuotaStore.
func (s *Store) TenantHoldings(ctx context.Context, tenant domain.TenantID) (domain.TenantHoldings, error) {
	row, err := s.q.TenantHoldings(ctx, db.TenantHoldingsParams{TenantID: string(tenant)})
	if err != nil {
		return domain.TenantHoldings{}, mapError(err, tenantNotFound)
	}
	return holdingsFromRow(row), nil
}

// adding is what a write adds to one quota's count.
func adding(q domain.Quota, n int64) domain.TenantHoldings {
	var h domain.TenantHoldings
	h.Counts[q] = n
	return h
}

// withinQuotas checks, inside the write's transaction q, that what the
// write adds keeps tenant within its quotas: those whose use it raises
// (index memory with the chunks). When none of them is limited, it counts
// nothing. Otherwise it takes the tenant's lock of family first, and
// counts what the tenant holds leaving out exceptDocument (whose chunks
// the write replaces; "" for none). Returns CodeQuotaExceeded naming the
// first quota passed.
func (s *Store) withinQuotas(ctx context.Context, q *db.Queries, tenant domain.TenantID, family, exceptDocument string, add domain.TenantHoldings) error {
	limits, err := s.limitsOf(ctx, q, tenant)
	if err != nil {
		return err
	}
	limited := false
	for _, quota := range domain.AllQuotas() {
		raised := add.Counts[quota] > 0 || (quota == domain.QuotaIndexMemoryBytes && add.Counts[domain.QuotaChunks] > 0)
		limited = limited || (raised && limits[quota] > 0)
	}
	if !limited {
		return nil
	}
	if err := q.LockTenantQuota(ctx, db.LockTenantQuotaParams{TenantID: string(tenant), Quota: family}); err != nil {
		return err
	}
	row, err := q.TenantHoldings(ctx, db.TenantHoldingsParams{TenantID: string(tenant), ExceptDocument: exceptDocument})
	if err != nil {
		return err
	}
	held := holdingsFromRow(row)
	before, after := held.Used(s.quotas), held.Plus(add).Used(s.quotas)
	for _, quota := range domain.AllQuotas() {
		if err := domain.CheckQuota(quota, limits[quota], before[quota], after[quota]-before[quota]); err != nil {
			return err
		}
	}
	return nil
}

// limitsOf reads tenant's quotas in q's transaction: a platform key's
// override applies to the next write, whatever a replica caches.
func (s *Store) limitsOf(ctx context.Context, q *db.Queries, tenant domain.TenantID) (domain.QuotaValues, error) {
	row, err := q.GetTenant(ctx, string(tenant))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Not entered yet (a command-line write): the platform's defaults.
		return s.quotas.Limits(domain.Tenant{}), nil
	case err != nil:
		return domain.QuotaValues{}, err
	}
	return s.quotas.Limits(tenantFromRow(row)), nil
}

func holdingsFromRow(r db.TenantHoldingsRow) domain.TenantHoldings {
	var h domain.TenantHoldings
	h.Counts[domain.QuotaKnowledgeBases] = r.KnowledgeBases
	h.Counts[domain.QuotaDocuments] = r.Documents
	h.Counts[domain.QuotaChunks] = r.Chunks
	h.Counts[domain.QuotaStoredBytes] = r.StoredBytes
	h.Counts[domain.QuotaIntentRules] = r.IntentRules
	h.Counts[domain.QuotaScriptFlows] = r.ScriptFlows
	h.Counts[domain.QuotaPromptTemplates] = r.PromptTemplates
	h.Counts[domain.QuotaDecompositionTemplates] = r.DecompositionTemplates
	h.ChunkTextBytes = r.ChunkTextBytes
	return h
}

// quotasFromRow reads a tenant's quota overrides (NULL: 0, the default).
func quotasFromRow(r db.Tenant) domain.QuotaValues {
	var v domain.QuotaValues
	for q, p := range map[domain.Quota]*int64{
		domain.QuotaKnowledgeBases: r.QuotaKnowledgeBases, domain.QuotaDocuments: r.QuotaDocuments,
		domain.QuotaChunks: r.QuotaChunks, domain.QuotaStoredBytes: r.QuotaStoredBytes,
		domain.QuotaIndexMemoryBytes: r.QuotaIndexMemoryBytes, domain.QuotaIntentRules: r.QuotaIntentRules,
		domain.QuotaScriptFlows: r.QuotaScriptFlows, domain.QuotaPromptTemplates: r.QuotaPromptTemplates,
		domain.QuotaDecompositionTemplates: r.QuotaDecompositionTemplates, domain.QuotaStreamsPerKey: r.QuotaStreamsPerKey,
	} {
		if p != nil {
			v[q] = *p
		}
	}
	return v
}
