package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const flowNotFound = "Script flow not found."

var (
	_ domain.ScriptFlowStore = (*Store)(nil)
	_ domain.FlowEventStore  = (*Store)(nil)
)

// CreateScriptFlow implements domain.ScriptFlowStore. Replicas hear of the
// change (ConfigScriptFlows) when it commits.
func (s *Store) CreateScriptFlow(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	var out domain.ScriptFlow
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := s.withinQuotas(ctx, q, f.TenantID, lockScriptFlows, "", adding(domain.QuotaScriptFlows, 1)); err != nil {
			return err
		}
		row, err := q.CreateScriptFlow(ctx, db.CreateScriptFlowParams{
			ID: f.ID, TenantID: string(f.TenantID), Name: f.Name, Description: f.Description,
			Enabled: f.Enabled, Steps: encodeFlowSteps(f.Steps),
		})
		if err != nil {
			return err
		}
		if out, err = scriptFlowFromRow(row); err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigScriptFlows, f.TenantID)
	})
	if err != nil {
		return domain.ScriptFlow{}, mapError(err, flowNotFound)
	}
	return out, nil
}

// GetScriptFlow implements domain.ScriptFlowStore.
func (s *Store) GetScriptFlow(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error) {
	row, err := s.q.GetScriptFlow(ctx, db.GetScriptFlowParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.ScriptFlow{}, mapError(err, flowNotFound)
	}
	f, err := scriptFlowFromRow(row)
	return f, mapError(err, flowNotFound)
}

// ListScriptFlows implements domain.ScriptFlowStore.
func (s *Store) ListScriptFlows(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ScriptFlow], error) {
	rows, err := s.q.ListScriptFlows(ctx, db.ListScriptFlowsParams{TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.ScriptFlow]{}, mapError(err, "")
	}
	items := make([]domain.ScriptFlow, len(rows))
	for i, r := range rows {
		if items[i], err = scriptFlowFromRow(r); err != nil {
			return domain.Page[domain.ScriptFlow]{}, mapError(err, "")
		}
	}
	return domain.PageOf(items, p, func(f domain.ScriptFlow) string { return f.ID }), nil
}

// UpdateScriptFlow implements domain.ScriptFlowStore.
func (s *Store) UpdateScriptFlow(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error) {
	var out domain.ScriptFlow
	err := s.inTx(ctx, func(q *db.Queries) error {
		row, err := q.UpdateScriptFlow(ctx, db.UpdateScriptFlowParams{
			TenantID: string(f.TenantID), ID: f.ID, Name: f.Name, Description: f.Description,
			Enabled: f.Enabled, Steps: encodeFlowSteps(f.Steps), Version: f.Version,
		})
		if err != nil {
			if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
				return err
			}
			// No row: either the flow is not there or the version is stale.
			exists, exErr := q.ScriptFlowExists(ctx, db.ScriptFlowExistsParams{TenantID: string(f.TenantID), ID: f.ID})
			if exErr != nil {
				return exErr
			}
			if !exists {
				return domain.Errorf(domain.CodeNotFound, flowNotFound)
			}
			return staleVersion()
		}
		if out, err = scriptFlowFromRow(row); err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigScriptFlows, f.TenantID)
	})
	if err != nil {
		return domain.ScriptFlow{}, mapError(err, flowNotFound)
	}
	return out, nil
}

// DeleteScriptFlow implements domain.ScriptFlowStore.
func (s *Store) DeleteScriptFlow(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteScriptFlow(ctx, db.DeleteScriptFlowParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, flowNotFound)
		}
		return notifyConfig(ctx, q, domain.ConfigScriptFlows, tenant)
	})
	return mapError(err, flowNotFound)
}

func scriptFlowFromRow(r db.ScriptFlow) (domain.ScriptFlow, error) {
	steps, err := decodeFlowSteps(r.Steps)
	if err != nil {
		return domain.ScriptFlow{}, err
	}
	return domain.ScriptFlow{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Description: r.Description,
		Enabled: r.Enabled, Steps: steps, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}
