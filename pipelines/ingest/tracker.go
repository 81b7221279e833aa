package ingest

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// trackBatch bounds the ids of one refresh query.
const trackBatch = 1000

// ReasonDocumentDeleted is the reason a Tracker gives a job that vanished
// because its document was deleted before the job finished.
const ReasonDocumentDeleted = "document_deleted"

// Tally counts a batch of jobs by outcome.
type Tally struct {
	Succeeded, Failed, Remaining int
}

// Tracker follows a batch of index jobs, of any tenants, to their end:
// what `assistant ingest` and `assistant reindex` show progress with. It
// only reads; whichever workers hold the jobs (this process's or a
// server's) run them.
type Tracker struct {
	jobs  domain.JobStore
	order []string
	byID  map[string]domain.IndexJob
}

// NewTracker returns an empty tracker reading jobs from store.
func NewTracker(store domain.JobStore) *Tracker {
	return &Tracker{jobs: store, byID: make(map[string]domain.IndexJob)}
}

// Add follows more jobs, as queued.
func (t *Tracker) Add(jobs ...domain.IndexJob) {
	for _, j := range jobs {
		if _, ok := t.byID[j.ID]; !ok {
			t.order = append(t.order, j.ID)
		}
		t.byID[j.ID] = j
	}
}

// Refresh reads every unfinished job again, one query per tenant and
// thousand jobs. A job that is gone (its document was deleted) counts as
// failed with ReasonDocumentDeleted.
func (t *Tracker) Refresh(ctx context.Context) error {
	open := make(map[domain.TenantID][]string)
	for _, id := range t.order {
		if j := t.byID[id]; !j.State.Finished() {
			open[j.TenantID] = append(open[j.TenantID], id)
		}
	}
	for tenant, ids := range open {
		for len(ids) > 0 {
			batch := ids[:min(len(ids), trackBatch)]
			ids = ids[len(batch):]
			got, err := t.jobs.IndexJobsByIDs(ctx, tenant, batch)
			if err != nil {
				return err
			}
			seen := make(map[string]bool, len(got))
			for _, j := range got {
				t.byID[j.ID], seen[j.ID] = j, true
			}
			for _, id := range batch {
				if !seen[id] {
					t.byID[id] = deletedJob(t.byID[id])
				}
			}
		}
	}
	return nil
}

// Wait refreshes every interval until every job has finished, calling
// report after each refresh. Returns ctx's error if it ends first.
func (t *Tracker) Wait(ctx context.Context, every time.Duration, report func(Tally)) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if err := t.Refresh(ctx); err != nil {
			return err
		}
		tally := t.Tally()
		report(tally)
		if tally.Remaining == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// Tally counts the jobs as last read.
func (t *Tracker) Tally() Tally {
	var out Tally
	for _, j := range t.byID {
		switch j.State {
		case domain.JobSucceeded:
			out.Succeeded++
		case domain.JobFailed:
			out.Failed++
		default:
			out.Remaining++
		}
	}
	return out
}

// Failed returns the failed jobs, in the order they were added.
func (t *Tracker) Failed() []domain.IndexJob {
	var out []domain.IndexJob
	for _, id := range t.order {
		if j := t.byID[id]; j.State == domain.JobFailed {
			out = append(out, j)
		}
	}
	return out
}

func deletedJob(j domain.IndexJob) domain.IndexJob {
	reason, detail := ReasonDocumentDeleted, "The document was deleted before it was indexed."
	j.State, j.Reason, j.Detail = domain.JobFailed, &reason, &detail
	return j
}
