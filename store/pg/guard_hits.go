package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

var _ domain.GuardHitStore = (*Store)(nil)

// GuardStats implements domain.GuardHitStore.
func (s *Store) GuardStats(ctx context.Context, tenant domain.TenantID, from, to time.Time) (domain.GuardStats, error) {
	out := domain.GuardStats{From: from.UTC(), To: to.UTC()}
	stages, err := s.q.GuardHitStageStats(ctx, db.GuardHitStageStatsParams{TenantID: string(tenant), FromAt: from, ToAt: to})
	if err != nil {
		return domain.GuardStats{}, mapError(err, "")
	}
	for _, st := range []domain.GuardStage{domain.GuardInput, domain.GuardOutput} {
		x := domain.GuardStageStats{Stage: st}
		for _, r := range stages {
			if r.Stage == string(st) {
				x = domain.GuardStageStats{Stage: st, Hits: int(r.Hits), Messages: int(r.Messages),
					Blocked: int(r.Blocked), Transferred: int(r.Transferred)}
			}
		}
		out.Stages = append(out.Stages, x)
	}
	if out.Words, err = s.guardRefStats(ctx, tenant, "word", from, to); err != nil {
		return domain.GuardStats{}, err
	}
	if out.Rules, err = s.guardRefStats(ctx, tenant, "rule", from, to); err != nil {
		return domain.GuardStats{}, err
	}
	if out.HighRisk, err = s.guardRefStats(ctx, tenant, "high_risk", from, to); err != nil {
		return domain.GuardStats{}, err
	}
	return out, nil
}

// guardRefStats counts the hits of one kind per word, rule or category,
// labelled with the word or rule as it is now.
func (s *Store) guardRefStats(ctx context.Context, tenant domain.TenantID, kind string, from, to time.Time) ([]domain.GuardRefStats, error) {
	rows, err := s.q.GuardHitRefStats(ctx, db.GuardHitRefStatsParams{
		TenantID: string(tenant), Kind: kind, FromAt: from, ToAt: to, Lim: domain.MaxGuardStatsItems,
	})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.GuardRefStats, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = domain.GuardRefStats{Ref: r.Ref, Label: r.LastPattern, Pattern: r.LastPattern, Exists: kind == "high_risk", Hits: int(r.Hits),
			InputHits: int(r.InputHits), OutputHits: int(r.Hits - r.InputHits), Blocks: int(r.Blocks),
			Transfers: int(r.Transfers), LastHitAt: r.LastHitAt.UTC()}
		ids[i] = r.Ref
	}
	labels := map[string]string{}
	switch kind {
	case "high_risk":
		for i := range out {
			out[i].Label = out[i].Ref
		}
		return out, nil
	case "word":
		ls, err := s.q.GuardWordLabels(ctx, db.GuardWordLabelsParams{TenantID: string(tenant), Ids: ids})
		if err != nil {
			return nil, mapError(err, "")
		}
		for _, l := range ls {
			labels[l.ID] = l.Word
		}
	case "rule":
		ls, err := s.q.GuardRuleLabels(ctx, db.GuardRuleLabelsParams{TenantID: string(tenant), Ids: ids})
		if err != nil {
			return nil, mapError(err, "")
		}
		for _, l := range ls {
			labels[l.ID] = l.Name
		}
	}
	for i := range out {
		if l, ok := labels[out[i].Ref]; ok {
			out[i].Label, out[i].Exists = l, true
		} else if kind == "rule" {
			out[i].Label = "" // a deleted rule's pattern is no name
		}
	}
	return out, nil
}
