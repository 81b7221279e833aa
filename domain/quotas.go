package domain

import (
	"context"
	"errors"
	"fmt"
)

// Quota names one bound on what a tenant holds or has open at once. The
// platform sets a default for each (the operator's settings); a platform
// key may override it per tenant (Tenant.Quotas).
type Quota int

// The quotas, in the order the contract lists them.
const (
	QuotaKnowledgeBases Quota = iota
	QuotaDocuments
	// QuotaChunks counts every stored chunk, generated questions included.
	QuotaChunks
	// QuotaStoredBytes counts the bytes of the uploaded files.
	QuotaStoredBytes
	// QuotaIndexMemoryBytes bounds the heap the tenant's chunks take in the
	// embedded search index (estimated from their count and text), and so
	// how many other tenants its loading may evict.
	QuotaIndexMemoryBytes
	QuotaIntentRules
	QuotaScriptFlows
	QuotaPromptTemplates
	QuotaDecompositionTemplates
	// QuotaStreamsPerKey bounds the event streams one API key has open in
	// the tenant at once (per replica).
	QuotaStreamsPerKey
	numQuotas
)

// AllQuotas returns every quota, in order.
func AllQuotas() []Quota {
	out := make([]Quota, numQuotas)
	for i := range out {
		out[i] = Quota(i)
	}
	return out
}

// Name is the quota's stable snake_case name, as problems name it.
func (q Quota) Name() string {
	switch q {
	case QuotaKnowledgeBases:
		return "knowledge_bases"
	case QuotaDocuments:
		return "documents"
	case QuotaChunks:
		return "chunks"
	case QuotaStoredBytes:
		return "stored_bytes"
	case QuotaIndexMemoryBytes:
		return "index_memory_bytes"
	case QuotaIntentRules:
		return "intent_rules"
	case QuotaScriptFlows:
		return "script_flows"
	case QuotaPromptTemplates:
		return "prompt_templates"
	case QuotaDecompositionTemplates:
		return "decomposition_templates"
	case QuotaStreamsPerKey:
		return "streams_per_key"
	}
	return fmt.Sprintf("quota_%d", int(q))
}

// InBytes reports whether the quota measures bytes. A request over such a
// quota is too large (413); one over a count is too many (429).
func (q Quota) InBytes() bool { return q == QuotaStoredBytes || q == QuotaIndexMemoryBytes }

// unit is what the quota counts, for messages.
func (q Quota) unit() string {
	switch q {
	case QuotaKnowledgeBases:
		return "knowledge bases"
	case QuotaStoredBytes:
		return "bytes of uploaded files"
	case QuotaIndexMemoryBytes:
		return "bytes of search index memory (estimated)"
	case QuotaIntentRules:
		return "intent rules"
	case QuotaScriptFlows:
		return "script flows"
	case QuotaPromptTemplates:
		return "prompt templates"
	case QuotaDecompositionTemplates:
		return "decomposition templates"
	case QuotaStreamsPerKey:
		return "event streams open with this API key"
	}
	return q.Name()
}

// QuotaValues holds one number per quota: limits (0: no limit) or a
// tenant's overrides (0: the platform default).
type QuotaValues [numQuotas]int64

// Overridden returns the limits d with every quota that o sets (non-zero)
// replaced by o's value.
func (d QuotaValues) Overridden(o QuotaValues) QuotaValues {
	for q, v := range o {
		if v > 0 {
			d[q] = v
		}
	}
	return d
}

// QuotaPolicy is how the platform bounds its tenants: the default quotas
// and how the search index memory of a tenant's chunks is estimated. The
// store checks its writes against it, the quota service reports against
// it: one value, so both agree.
type QuotaPolicy struct {
	// Defaults are the platform's quotas (0: no limit).
	Defaults QuotaValues
	// IndexBytes estimates the heap the embedded search index holds for
	// chunks chunks of textBytes bytes of search text; nil when there is
	// no embedded index (vectors in Qdrant), where the index memory quota
	// does not apply.
	IndexBytes func(chunks, textBytes int64) int64
}

// Limits are tenant t's quotas: the defaults with its overrides.
func (p QuotaPolicy) Limits(t Tenant) QuotaValues {
	l := p.Defaults.Overridden(t.Quotas)
	if p.IndexBytes == nil {
		l[QuotaIndexMemoryBytes] = 0
	}
	return l
}

// IndexMemory is the estimated index heap of chunks chunks of textBytes
// bytes of search text; 0 without an embedded index.
func (p QuotaPolicy) IndexMemory(chunks, textBytes int64) int64 {
	if p.IndexBytes == nil || chunks <= 0 {
		return 0
	}
	return p.IndexBytes(chunks, textBytes)
}

// TenantHoldings is what a tenant holds as the store counts it.
type TenantHoldings struct {
	// Counts holds the use of every quota the store counts: all but
	// QuotaIndexMemoryBytes (estimated, see Used) and QuotaStreamsPerKey
	// (counted in memory).
	Counts QuotaValues
	// ChunkTextBytes is the search text of the tenant's chunks.
	ChunkTextBytes int64
}

// Used is what the holdings use of each quota under p, with the index
// memory estimated from the chunks.
func (h TenantHoldings) Used(p QuotaPolicy) QuotaValues {
	u := h.Counts
	u[QuotaIndexMemoryBytes] = p.IndexMemory(h.Counts[QuotaChunks], h.ChunkTextBytes)
	return u
}

// Plus is h with what o holds added.
func (h TenantHoldings) Plus(o TenantHoldings) TenantHoldings {
	for q, v := range o.Counts {
		h.Counts[q] += v
	}
	h.ChunkTextBytes += o.ChunkTextBytes
	return h
}

// QuotaUsage is each quota's limit (0: none) and current use.
type QuotaUsage struct {
	Limits QuotaValues
	Used   QuotaValues
}

// QuotaStore counts what tenants hold.
type QuotaStore interface {
	// TenantHoldings counts what tenant holds.
	TenantHoldings(ctx context.Context, tenant TenantID) (TenantHoldings, error)
}

// QuotaExceeded names the quota a refused request or job would pass: its
// limit and what was in use.
type QuotaExceeded struct {
	Quota Quota
	Limit int64
	Used  int64
}

// CheckQuota returns nil when adding more to used stays within limit (0:
// no limit; asking for nothing always does), and otherwise
// CodeQuotaExceeded naming q.
func CheckQuota(q Quota, limit, used, adding int64) error {
	if limit <= 0 || adding <= 0 || used+adding <= limit {
		return nil
	}
	return &Error{
		Code: CodeQuotaExceeded,
		Message: fmt.Sprintf("Over the tenant's %s quota of %d: %d %s in use, and this needs %d more.",
			q.Name(), limit, used, q.unit(), adding),
		Quota: &QuotaExceeded{Quota: q, Limit: limit, Used: used},
	}
}

// QuotaOf returns the quota an error of err's chain was refused by; ok is
// false when it is no quota's refusal.
func QuotaOf(err error) (QuotaExceeded, bool) {
	var e *Error
	if !errors.As(err, &e) || e.Quota == nil {
		return QuotaExceeded{}, false
	}
	return *e.Quota, true
}

// Reasons of index jobs failed by a quota: the document would take its
// tenant past it. Nothing of the document is indexed (an earlier indexing
// stays).
const (
	ReasonChunkQuota       = "chunk_quota_exceeded"
	ReasonIndexMemoryQuota = "index_memory_quota_exceeded"
)
