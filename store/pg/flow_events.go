package pg

import (
	"context"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// FlowStats implements domain.FlowEventStore: one query for the page of
// flows and their totals, one for the steps of those flows.
func (s *Store) FlowStats(ctx context.Context, tenant domain.TenantID, from, to time.Time, p domain.PageRequest) (domain.Page[domain.FlowStats], error) {
	totals, err := s.q.FlowStatsTotals(ctx, db.FlowStatsTotalsParams{
		TenantID: string(tenant), FromTime: from, ToTime: to, After: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.FlowStats]{}, mapError(err, "")
	}
	page := domain.PageOf(totals, p, func(r db.FlowStatsTotalsRow) string { return r.FlowID })
	ids := make([]string, len(page.Items))
	for i, r := range page.Items {
		ids[i] = r.FlowID
	}
	steps, err := s.q.FlowStepStats(ctx, db.FlowStepStatsParams{TenantID: string(tenant), FlowIds: ids, FromTime: from, ToTime: to})
	if err != nil {
		return domain.Page[domain.FlowStats]{}, mapError(err, "")
	}
	byFlow := make(map[string][]db.FlowStepStatsRow, len(ids))
	for _, r := range steps {
		byFlow[r.FlowID] = append(byFlow[r.FlowID], r)
	}
	out := domain.Page[domain.FlowStats]{Items: make([]domain.FlowStats, len(page.Items)), Next: page.Next}
	for i, r := range page.Items {
		out.Items[i] = domain.FlowStats{
			FlowID: r.FlowID, Name: r.Name, Deleted: r.Deleted,
			Starts: r.Starts, Active: r.Active, Completions: r.Completions, Transfers: r.Transfers,
			TimeoutEndings: r.TimeoutEndings, InvalidInputEndings: r.InvalidInputEndings, Dropped: r.Dropped,
			Timeouts: r.Timeouts, Steps: flowStepStats(int(r.StepCount), byFlow[r.FlowID]),
		}
	}
	return out, nil
}

// flowStepStats lists steps 1..stepCount of the flow's current definition,
// zero where no instance entered them, merged with every other step that
// events name (a step since removed), ordered by step number.
func flowStepStats(stepCount int, rows []db.FlowStepStatsRow) []domain.FlowStepStats {
	byNo := make(map[int]domain.FlowStepStats, stepCount+len(rows))
	for n := 1; n <= stepCount; n++ {
		byNo[n] = domain.FlowStepStats{StepNo: n}
	}
	for _, r := range rows {
		byNo[int(r.StepNo)] = domain.FlowStepStats{StepNo: int(r.StepNo), Entered: r.Entered, DropOff: r.DropOff}
	}
	out := make([]domain.FlowStepStats, 0, len(byNo))
	for _, st := range byNo {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b domain.FlowStepStats) int { return a.StepNo - b.StepNo })
	return out
}
