package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// ListIndexJobs implements GET /admin/kb/index/jobs.
func (h *handlers) ListIndexJobs(ctx context.Context, r api.ListIndexJobsRequestObject) (api.ListIndexJobsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Jobs.ListIndexJobs(ctx, tenant, domain.JobFilter{
		State: (*domain.JobState)(r.Params.State), DocumentID: r.Params.DocumentId,
	}, page)
	if err != nil {
		return nil, err
	}
	return api.ListIndexJobs200JSONResponse{Items: convertAll(res.Items, toAPIJob), NextCursor: nextCursor(res.Next)}, nil
}

// GetIndexJob implements GET /admin/kb/index/jobs/{jobId}.
func (h *handlers) GetIndexJob(ctx context.Context, r api.GetIndexJobRequestObject) (api.GetIndexJobResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	job, err := h.d.Jobs.GetIndexJob(ctx, tenant, r.JobId)
	if err != nil {
		return nil, err
	}
	return api.GetIndexJob200JSONResponse(toAPIJob(job)), nil
}

func toAPIJob(j domain.IndexJob) api.IndexJob {
	return api.IndexJob{
		Id: j.ID, TenantId: string(j.TenantID), DocumentId: j.DocumentID, KbId: j.KBID, State: api.IndexJobState(j.State),
		Progress: api.IndexJobProgress{Done: j.Done, Total: j.Total}, Attempts: j.Attempts, Reason: j.Reason, Detail: j.Detail,
		NextAttemptAt: j.NextAttemptAt, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
	}
}
