package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const flowMonitoringPath = "/api/v1/admin/monitoring/flows"

// flowStats is one item of the flow monitoring report.
type flowStats struct {
	FlowID              string `json:"flowId"`
	Name                string `json:"name"`
	Deleted             bool   `json:"deleted"`
	Starts              int    `json:"starts"`
	Active              int    `json:"active"`
	Completions         int    `json:"completions"`
	Transfers           int    `json:"transfers"`
	Timeouts            int    `json:"timeouts"`
	TimeoutEndings      int    `json:"timeoutEndings"`
	InvalidInputEndings int    `json:"invalidInputEndings"`
	Dropped             int    `json:"dropped"`
	Steps               []struct {
		StepNo  int `json:"step_no"`
		Entered int `json:"entered"`
		DropOff int `json:"dropOff"`
	} `json:"steps"`
}

// flowReport fetches the report of tenant with the query q.
func (e *env) flowReport(tenant string, q url.Values) (map[string]flowStats, []string, *string) {
	e.t.Helper()
	r := e.do(req{method: "GET", path: flowMonitoringPath + "?" + q.Encode(), tenant: tenant})
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	var body struct {
		Items      []flowStats `json:"items"`
		NextCursor *string     `json:"nextCursor"`
	}
	require.NoError(e.t, json.Unmarshal(r.Body, &body))
	byID := map[string]flowStats{}
	var order []string
	for _, it := range body.Items {
		byID[it.FlowID] = it
		order = append(order, it.FlowID)
	}
	return byID, order, body.NextCursor
}

// instance builds the events of one flow instance: a start, then the
// steps entered (a negative number is a step reached by a timeout), then
// an optional ending kind, all at one instant as one message records them.
func instance(tenant domain.TenantID, flowID, session string, at time.Time, steps []int, ending domain.FlowEventKind, endTimedOut bool) []domain.FlowEvent {
	ev := []domain.FlowEvent{{TenantID: tenant, FlowID: flowID, SessionID: session, Kind: domain.FlowStarted, At: at}}
	last := 0
	for _, s := range steps {
		timedOut := s < 0
		last = max(s, -s)
		ev = append(ev, domain.FlowEvent{TenantID: tenant, FlowID: flowID, SessionID: session, Kind: domain.FlowStep,
			StepNo: last, TimedOut: timedOut, At: at})
	}
	if ending != "" {
		ev = append(ev, domain.FlowEvent{TenantID: tenant, FlowID: flowID, SessionID: session, Kind: ending,
			StepNo: last, TimedOut: endTimedOut, At: at.Add(time.Minute)})
	}
	return ev
}

func TestFlowMonitoring(t *testing.T) {
	e := newEnv(t)
	returns := e.createFlow("acme", "Returns", returnsSteps())["id"].(string)
	idle := e.createFlow("acme", "Idle", returnsSteps())["id"].(string)
	gone := e.createFlow("acme", "Gone", returnsSteps())["id"].(string)
	e.do(req{method: "GET", path: flowsPath, tenant: "globex"}) // creates the other tenant

	now := time.Now().UTC()
	var events []domain.FlowEvent
	add := func(ev []domain.FlowEvent) { events = append(events, ev...) }
	// Six instances of Returns started within the last day.
	add(instance("acme", returns, "s1", now.Add(-5*time.Hour), []int{1, 2, 3}, domain.FlowCompleted, false))
	add(instance("acme", returns, "s2", now.Add(-4*time.Hour), []int{1, 2}, domain.FlowTransferred, false))
	add(instance("acme", returns, "s3", now.Add(-4*time.Hour), []int{1, 2}, domain.FlowTimedOut, true))
	add(instance("acme", returns, "s4", now.Add(-3*time.Hour), []int{1, 2, -3}, domain.FlowInvalidInput, false))
	add(instance("acme", returns, "s5", now.Add(-2*time.Hour), []int{1, 2}, "", false))
	// s1 runs the flow a second time, which is abandoned by an edit.
	add(instance("acme", returns, "s1", now.Add(-1*time.Hour), []int{1, 2}, domain.FlowDropped, false))
	// Outside the default range: started ten days ago, and one started
	// eight days ago whose ending falls inside the range.
	add(instance("acme", returns, "old", now.Add(-240*time.Hour), []int{1, 2}, domain.FlowCompleted, false))
	add(instance("acme", returns, "tail", now.Add(-192*time.Hour), []int{1, 2}, "", false))
	add([]domain.FlowEvent{{TenantID: "acme", FlowID: returns, SessionID: "tail", Kind: domain.FlowCompleted, StepNo: 2, At: now.Add(-time.Hour)}})
	// Another tenant's events for the same flow id never count.
	add(instance("globex", returns, "x", now.Add(-time.Hour), []int{1, 2}, domain.FlowCompleted, false))
	// A flow deleted after it ran keeps its history.
	add(instance("acme", gone, "s9", now.Add(-time.Hour), []int{1}, domain.FlowTransferred, false))
	require.NoError(t, e.app.store.RecordFlowEvents(t.Context(), events))
	require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: flowsPath + "/" + gone, tenant: "acme"}).Status)

	report, order, next := e.flowReport("acme", url.Values{})
	assert.Nil(t, next)
	assert.Equal(t, []string{gone, idle, returns}, order, "newest flow first, the deleted one included")

	t.Run("totals count the instances started in the range by how they ended", func(t *testing.T) {
		r := report[returns]
		assert.Equal(t, "Returns", r.Name)
		assert.False(t, r.Deleted)
		assert.Equal(t, 6, r.Starts)
		assert.Equal(t, 1, r.Active)
		assert.Equal(t, 1, r.Completions)
		assert.Equal(t, 1, r.Transfers)
		assert.Equal(t, 1, r.TimeoutEndings)
		assert.Equal(t, 1, r.InvalidInputEndings)
		assert.Equal(t, 1, r.Dropped)
		assert.Equal(t, 2, r.Timeouts, "the one that ended s3 and the one that moved s4 to step 3")
	})
	t.Run("drop-off is counted at the last step entered by instances that did not complete", func(t *testing.T) {
		r := report[returns]
		require.Len(t, r.Steps, 3)
		type step struct{ no, entered, dropOff int }
		var got []step
		sum := 0
		for _, s := range r.Steps {
			got = append(got, step{s.StepNo, s.Entered, s.DropOff})
			sum += s.DropOff
		}
		assert.Equal(t, []step{{1, 6, 0}, {2, 6, 4}, {3, 2, 1}}, got)
		assert.Equal(t, r.Starts-r.Completions, sum)
	})
	t.Run("an idle flow is listed with zeros for each of its steps", func(t *testing.T) {
		r := report[idle]
		assert.Zero(t, r.Starts)
		require.Len(t, r.Steps, 3)
		for _, s := range r.Steps {
			assert.Zero(t, s.Entered)
		}
	})
	t.Run("a deleted flow keeps its history", func(t *testing.T) {
		r := report[gone]
		assert.True(t, r.Deleted)
		assert.Empty(t, r.Name)
		assert.Equal(t, 1, r.Transfers)
		require.Len(t, r.Steps, 1)
		assert.Equal(t, 1, r.Steps[0].DropOff)
	})
	t.Run("an explicit range counts only the instances started in it", func(t *testing.T) {
		report, _, _ := e.flowReport("acme", url.Values{
			"from": {now.Add(-4*time.Hour - time.Minute).Format(time.RFC3339)},
			"to":   {now.Add(-3*time.Hour + time.Minute).Format(time.RFC3339)},
		})
		r := report[returns]
		assert.Equal(t, 3, r.Starts, "s2, s3 and s4")
		assert.Equal(t, 1, r.Transfers)
		assert.Equal(t, 1, r.InvalidInputEndings, "s4's ending counts though it came after the range")
		_, gonePresent := report[gone]
		assert.False(t, gonePresent, "a deleted flow without instances in the range is left out")

		old, _, _ := e.flowReport("acme", url.Values{
			"from": {now.Add(-241 * time.Hour).Format(time.RFC3339)}, "to": {now.Add(-191 * time.Hour).Format(time.RFC3339)},
		})
		assert.Equal(t, 2, old[returns].Starts)
		assert.Equal(t, 2, old[returns].Completions, "the instance completed a week later counts in the range it started")
	})
	t.Run("pages over flows", func(t *testing.T) {
		_, first, next := e.flowReport("acme", url.Values{"limit": {"2"}})
		require.NotNil(t, next)
		_, second, last := e.flowReport("acme", url.Values{"limit": {"2"}, "cursor": {*next}})
		assert.Nil(t, last)
		assert.Equal(t, order, append(first, second...))
	})
	t.Run("the other tenant sees only its own events", func(t *testing.T) {
		report, order, _ := e.flowReport("globex", url.Values{})
		require.Equal(t, []string{returns}, order, "its events name the id, but the flow is acme's")
		assert.True(t, report[returns].Deleted, "not a flow of this tenant")
		assert.Equal(t, 1, report[returns].Completions)
	})
	t.Run("a range that ends before it starts is a 400", func(t *testing.T) {
		r := e.do(req{method: "GET", path: flowMonitoringPath + "?" + url.Values{
			"from": {now.Format(time.RFC3339)}, "to": {now.Add(-time.Hour).Format(time.RFC3339)},
		}.Encode(), tenant: "acme"})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"query.from"}, flowFieldErrors(t, r))
	})
}
