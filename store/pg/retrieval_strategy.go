package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// CurrentStrategy implements domain.StrategyStore.
func (s *Store) CurrentStrategy(ctx context.Context, tenant domain.TenantID) (*domain.RetrievalStrategy, error) {
	raw, err := s.q.GetRetrievalStrategy(ctx, string(tenant))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, mapError(err, "")
	}
	st, err := decodeStrategy(raw)
	if err != nil {
		return nil, storedStrategyError("tenant", string(tenant), err)
	}
	return &st, nil
}

// SetStrategy implements domain.StrategyStore.
func (s *Store) SetStrategy(ctx context.Context, tenant domain.TenantID, to *domain.RetrievalStrategy, a domain.StrategyAudit) error {
	from, toJSON, findings := encodeStrategy(a.From), encodeStrategy(a.To), encodeFindings(a.Findings)
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if to == nil {
			err = q.DeleteRetrievalStrategy(ctx, string(tenant))
		} else {
			err = q.UpsertRetrievalStrategy(ctx, db.UpsertRetrievalStrategyParams{TenantID: string(tenant), Config: encodeStrategy(*to)})
		}
		if err != nil {
			return err
		}
		err = q.InsertStrategyAudit(ctx, db.InsertStrategyAuditParams{
			ID: a.ID, TenantID: string(tenant), Action: a.Action, KeyID: a.KeyID,
			FromConfig: from, ToConfig: toJSON, Findings: findings,
		})
		if err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigStrategy, tenant)
	}), "")
}

// ListStrategyAudit implements domain.StrategyStore.
func (s *Store) ListStrategyAudit(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.StrategyAudit], error) {
	rows, err := s.q.ListStrategyAudit(ctx, db.ListStrategyAuditParams{TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.StrategyAudit]{}, mapError(err, "")
	}
	items := make([]domain.StrategyAudit, len(rows))
	for i, r := range rows {
		a := domain.StrategyAudit{ID: r.ID, TenantID: domain.TenantID(r.TenantID), Action: r.Action, KeyID: r.KeyID, At: r.At.UTC()}
		if a.From, err = decodeStrategy(r.FromConfig); err != nil {
			return domain.Page[domain.StrategyAudit]{}, storedStrategyError("audit entry", r.ID, err)
		}
		if a.To, err = decodeStrategy(r.ToConfig); err != nil {
			return domain.Page[domain.StrategyAudit]{}, storedStrategyError("audit entry", r.ID, err)
		}
		if a.Findings, err = decodeFindings(r.Findings, r.ID); err != nil {
			return domain.Page[domain.StrategyAudit]{}, err
		}
		items[i] = a
	}
	return domain.PageOf(items, p, func(a domain.StrategyAudit) string { return a.ID }), nil
}

// RecentRetrievals implements domain.StrategyStore.
func (s *Store) RecentRetrievals(ctx context.Context, tenant domain.TenantID, n int) ([]domain.RetrievalEvent, error) {
	rows, err := s.q.RecentRetrievalEvents(ctx, db.RecentRetrievalEventsParams{TenantID: string(tenant), Lim: int32(n)})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.RetrievalEvent, len(rows))
	for i, r := range rows {
		e := domain.RetrievalEvent{
			TenantID: domain.TenantID(r.TenantID), Hits: r.Hits, TopScore: r.TopScore, EvidenceTokens: r.EvidenceTokens,
			Insufficient: r.Insufficient, Transferred: r.Transferred, LatencyMs: r.LatencyMs, At: r.CreatedAt.UTC(),
		}
		if e.Strategy, err = decodeStrategy(r.Config); err != nil {
			return nil, storedStrategyError("retrieval event of tenant", r.TenantID, err)
		}
		out[i] = e
	}
	return out, nil
}

// RetrievalMetrics implements domain.StrategyStore.
func (s *Store) RetrievalMetrics(ctx context.Context, tenant domain.TenantID) ([]domain.StrategyMetrics, error) {
	rows, err := s.q.RetrievalMetrics(ctx, string(tenant))
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.StrategyMetrics, len(rows))
	for i, r := range rows {
		m := domain.StrategyMetrics{
			StrategyID: r.StrategyID, Queries: r.Queries, MeanHits: r.MeanHits, MeanTopScore: r.MeanTopScore,
			InsufficientRate: r.InsufficientRate, TransferRate: r.TransferRate, P50LatencyMs: r.P50LatencyMs, P95LatencyMs: r.P95LatencyMs,
		}
		if m.Strategy, err = decodeStrategy(r.Config); err != nil {
			return nil, storedStrategyError("strategy", r.StrategyID, err)
		}
		out[i] = m
	}
	return out, nil
}

// storedStrategyError is a strategy the store wrote that it cannot read
// back: an internal error naming the row.
func storedStrategyError(what, id string, err error) error {
	return &domain.Error{Code: domain.CodeInternal, Message: fmt.Sprintf("The stored strategy of %s %s cannot be read.", what, id), Err: err}
}
