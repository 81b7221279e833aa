package flow

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// rangeRecorder is a FlowEventStore that records the range it was asked.
type rangeRecorder struct{ from, to time.Time }

func (r *rangeRecorder) RecordFlowEvents(context.Context, []domain.FlowEvent) error { return nil }

func (r *rangeRecorder) FlowStats(_ context.Context, _ domain.TenantID, from, to time.Time, _ domain.PageRequest) (domain.Page[domain.FlowStats], error) {
	r.from, r.to = from, to
	return domain.Page[domain.FlowStats]{}, nil
}

// oneFlow is a ScriptFlowStore holding one flow; only Get is used here.
type oneFlow struct {
	domain.ScriptFlowStore
	f domain.ScriptFlow
}

func (s oneFlow) GetScriptFlow(_ context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error) {
	if tenant != s.f.TenantID || id != s.f.ID {
		return domain.ScriptFlow{}, domain.Errorf(domain.CodeNotFound, "Script flow not found.")
	}
	return s.f, nil
}

func TestStatsRange(t *testing.T) {
	rec := &rangeRecorder{}
	s := NewService(nil, rec, nil)
	s.now = t0
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { v := t0().Add(d); return &v }

	cases := []struct {
		name     string
		from, to *time.Time
		wantFrom time.Time
		wantTo   time.Time
		badField string
	}{
		{name: "defaults to the last 7 days", wantFrom: t0().Add(-7 * day), wantTo: t0()},
		{name: "from alone runs to now", from: at(-2 * day), wantFrom: t0().Add(-2 * day), wantTo: t0()},
		{name: "to alone looks back 7 days", to: at(-day), wantFrom: t0().Add(-8 * day), wantTo: t0().Add(-day)},
		{name: "366 days is allowed", from: at(-366 * day), wantFrom: t0().Add(-366 * day), wantTo: t0()},
		{name: "an empty range is refused", from: at(0), to: at(0), badField: "query.from"},
		{name: "a reversed range is refused", from: at(day), to: at(0), badField: "query.from"},
		{name: "over 366 days is refused", from: at(-367 * day), badField: "query.from"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := s.Stats(t.Context(), "acme", c.from, c.to, domain.PageRequest{Limit: 10})
			if c.badField != "" {
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, c.badField, de.Fields[0].Field)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.wantFrom, rep.From)
			assert.Equal(t, c.wantTo, rep.To)
			assert.Equal(t, c.wantFrom, rec.from, "the store is asked for the same range")
			assert.Equal(t, c.wantTo, rec.to)
		})
	}
}

func TestServiceValidatesBeforeTheStore(t *testing.T) {
	s := NewService(nil, nil, nil) // a nil store panics if it is reached
	f := domainFlow()
	f.Steps[0].StepNo = 5
	_, err := s.Create(t.Context(), f)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	_, err = s.Update(t.Context(), f)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}

func TestServiceSimulate(t *testing.T) {
	f := domainFlow()
	f.Enabled = false
	s := NewService(oneFlow{f: f}, nil, nil)
	replies, err := s.Simulate(t.Context(), "acme", "flow_1", []string{"exchange"})
	require.NoError(t, err, "a disabled flow can be simulated")
	require.Len(t, replies, 2)
	assert.Equal(t, OutcomeCompleted, replies[1].State.Outcome)

	_, err = s.Simulate(t.Context(), "globex", "flow_1", nil)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	_, err = s.Simulate(t.Context(), "acme", "flow_1", make([]string, MaxSimulateInputs+1))
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}
