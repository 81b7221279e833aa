package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/embed/offline"
)

// The tracker follows jobs of several tenants to their end, whoever runs
// them; a job whose document was deleted counts as failed.
func TestTrackerFollowsJobsToTheirEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	_, ok := h.upload(t, h.kb, "ok.txt", []byte("fine"), nil)
	_, bad := h.upload(t, h.kb, "bad.txt", []byte("broken"), nil)
	gone, goneJob := h.upload(t, h.kb, "gone.txt", []byte("deleted soon"), nil)
	globexKB := h.newKB(t, "globex", "faq")
	globex, _, _, err := h.service.Upload(ctx, Upload{Tenant: "globex", KBID: globexKB, FileName: "other.txt", Content: []byte("other")})
	require.NoError(t, err)
	globexJob, err := h.store.ListIndexJobs(ctx, "globex", domain.JobFilter{DocumentID: &globex.ID}, domain.PageRequest{Limit: 1})
	require.NoError(t, err)

	tr := NewTracker(h.store)
	tr.Add(ok, bad, goneJob, globexJob.Items[0])
	assert.Equal(t, Tally{Remaining: 4}, tr.Tally())
	require.NoError(t, tr.Refresh(ctx))
	assert.Equal(t, Tally{Remaining: 4}, tr.Tally(), "all still queued")

	// A worker finishes them: one fails; one document is deleted.
	require.NoError(t, h.service.DeleteDocument(ctx, h.tenant, gone.ID))
	for {
		job, claimed, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Hour})
		require.NoError(t, err)
		if !claimed {
			break
		}
		if job.ID == bad.ID {
			require.NoError(t, h.store.FailJob(ctx, "test", job, "corrupt_file", "The file is damaged."))
			continue
		}
		require.NoError(t, h.store.SucceedJob(ctx, "test", job, 1, offline.ModelName))
	}
	var reports []Tally
	require.NoError(t, tr.Wait(ctx, time.Millisecond, func(t Tally) { reports = append(reports, t) }))
	assert.Equal(t, []Tally{{Succeeded: 2, Failed: 2}}, reports, "one refresh sees every job finished")

	failed := tr.Failed()
	require.Len(t, failed, 2)
	assert.Equal(t, bad.ID, failed[0].ID, "in the order added")
	assert.Equal(t, "corrupt_file", *failed[0].Reason)
	assert.Equal(t, goneJob.ID, failed[1].ID)
	assert.Equal(t, ReasonDocumentDeleted, *failed[1].Reason)
	assert.Equal(t, "The document was deleted before it was indexed.", *failed[1].Detail)
}

// Wait stops when its context ends, with the jobs still open.
func TestTrackerWaitEndsWithItsContext(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, job := h.upload(t, h.kb, "a.txt", []byte("never run"), nil)
	tr := NewTracker(h.store)
	tr.Add(job)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := tr.Wait(ctx, 10*time.Millisecond, func(Tally) {})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, Tally{Remaining: 1}, tr.Tally())
}
