package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const flowsPath = "/api/v1/admin/script-flows"

// returnsSteps is a flow that exercises every kind of step: one that does
// not wait, a menu with branches, retries and an on_invalid hand-off, and
// a free-form answer checked by a regex with a timeout.
func returnsSteps() []any {
	return []any{
		map[string]any{"step_no": 1, "prompt": "Hello, this is returns.", "wait_input": false},
		map[string]any{
			"step_no": 2, "prompt": "Return or exchange?", "wait_input": true,
			"expect": map[string]any{
				"options": []any{"Return", "Exchange", "Agent"}, "slot": "kind",
				"retry_prompt": "Please answer return or exchange.", "max_retries": 1,
				"on_invalid": map[string]any{"kind": "transfer", "reason": "cannot_answer"},
			},
			"branches": []any{
				map[string]any{"option": "Exchange", "then": map[string]any{"kind": "end", "text": "Exchanges are done in the shop."}},
				map[string]any{"option": "Agent", "then": map[string]any{"kind": "transfer", "reason": "wants_agent", "text": "Passing you on."}},
			},
		},
		map[string]any{
			"step_no": 3, "prompt": "Your order number?", "wait_input": true,
			"expect":       map[string]any{"regex": `^\d{8}$`, "slot": "order_no"},
			"default_next": map[string]any{"kind": "end", "text": "Thanks, a label is on its way."},
			"timeout":      300, "on_timeout": map[string]any{"kind": "end", "text": "We will be here when you are back."},
		},
	}
}

// createFlow makes a flow in tenant and returns its JSON.
func (e *env) createFlow(tenant, name string, steps []any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: flowsPath, tenant: tenant, body: map[string]any{"name": name, "steps": steps}})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// fieldErrors returns the field pointers of a problem, in order.
func flowFieldErrors(t *testing.T, r response) []string {
	t.Helper()
	var fields []string
	for _, f := range r.JSON(t)["errors"].([]any) {
		fields = append(fields, f.(map[string]any)["field"].(string))
	}
	return fields
}

// jsonOf re-encodes v, so that request bodies and response parts compare
// as JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestScriptFlowCRUD(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "POST", path: flowsPath, tenant: "acme",
		body: map[string]any{"name": "Returns", "description": "From the order number to the label.", "steps": returnsSteps()}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	f := r.JSON(t)
	id := f["id"].(string)
	assert.Regexp(t, `^flow_[0-9a-f]{32}$`, id)
	assert.Equal(t, flowsPath+"/"+id, r.Header.Get("Location"))
	assert.Equal(t, true, f["enabled"], "enabled by default")
	assert.EqualValues(t, 1, f["version"])
	assert.JSONEq(t, jsonOf(t, returnsSteps()), jsonOf(t, f["steps"]), "steps come back as written")
	path := r.Header.Get("Location")

	t.Run("get returns the stored flow", func(t *testing.T) {
		r := e.do(req{method: "GET", path: path, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status)
		assert.JSONEq(t, string(jsonOf(t, f)), string(r.Body))
	})
	t.Run("the store gives the pipeline the flow with its steps", func(t *testing.T) {
		got, err := e.app.store.GetScriptFlow(t.Context(), "acme", id)
		require.NoError(t, err)
		assert.True(t, got.Enabled)
		require.Len(t, got.Steps, 3)
		assert.Equal(t, 300_000_000_000, int(got.Steps[2].Timeout), "300 seconds")
		assert.Equal(t, []string{"Return", "Exchange", "Agent"}, got.Steps[1].Expect.Options)
		assert.Equal(t, domain.ScriptFlowTarget{Kind: "transfer", Reason: "wants_agent", Text: "Passing you on."}, got.Steps[1].Branches[1].Then)

		_, err = e.app.store.GetScriptFlow(t.Context(), "globex", id)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "another tenant's flow is not found")
	})
	t.Run("update replaces the flow and bumps the version; a stale version is a conflict", func(t *testing.T) {
		steps := []any{map[string]any{"step_no": 1, "prompt": "Your order number?", "wait_input": true,
			"expect": map[string]any{"regex": `^\d{8}$`, "slot": "order_no", "max_retries": 2}}}
		r := e.do(req{method: "PUT", path: path, tenant: "acme",
			body: map[string]any{"name": "Returns v2", "description": "", "enabled": false, "steps": steps, "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.EqualValues(t, 2, got["version"])
		assert.Equal(t, "Returns v2", got["name"])
		assert.Equal(t, false, got["enabled"])
		assert.JSONEq(t, jsonOf(t, steps), jsonOf(t, got["steps"]))

		stale := e.do(req{method: "PUT", path: path, tenant: "acme",
			body: map[string]any{"name": "x", "description": "", "enabled": true, "steps": steps, "version": 1}})
		assert.Equal(t, http.StatusConflict, stale.Status)
		assert.Equal(t, "version_conflict", stale.Code(t))
		assert.Equal(t, "Returns v2", e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["name"], "nothing changed")

		disabled, err := e.app.store.GetScriptFlow(t.Context(), "acme", id)
		require.NoError(t, err)
		assert.False(t, disabled.Enabled, "a disabled flow is still returned to the pipeline")
	})
	t.Run("list pages newest first", func(t *testing.T) {
		second := e.createFlow("acme", "Address change", returnsSteps())["id"].(string)
		third := e.createFlow("acme", "Cancel", returnsSteps())["id"].(string)
		var seen []string
		next := flowsPath + "?limit=2"
		for next != "" {
			r := e.do(req{method: "GET", path: next, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status)
			body := r.JSON(t)
			for _, it := range body["items"].([]any) {
				seen = append(seen, it.(map[string]any)["id"].(string))
			}
			next = ""
			if c, ok := body["nextCursor"].(string); ok {
				next = flowsPath + "?limit=2&cursor=" + c
			}
		}
		assert.Equal(t, []string{third, second, id}, seen)
	})
	t.Run("delete removes it", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
	})
}

func TestScriptFlowValidation(t *testing.T) {
	e := newEnv(t)
	broken := []any{
		map[string]any{"step_no": 1, "prompt": "Pick one", "wait_input": true,
			"expect":   map[string]any{"options": []any{"A", "B"}, "regex": "(unclosed"},
			"branches": []any{map[string]any{"option": "A", "then": map[string]any{"kind": "next", "step_no": 9}}}},
		map[string]any{"step_no": 3, "prompt": "Done"},
	}
	want := []string{"/steps/1/step_no", "/steps/0/expect/regex", "/steps/0/branches/0/then/step_no"}

	t.Run("create names every bad field at once", func(t *testing.T) {
		r := e.do(req{method: "POST", path: flowsPath, tenant: "acme", body: map[string]any{"name": "Broken", "steps": broken}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.ElementsMatch(t, want, flowFieldErrors(t, r))
		assert.Contains(t, string(r.Body), "step 1: the regex does not compile")
	})
	t.Run("update validates the same way and changes nothing", func(t *testing.T) {
		f := e.createFlow("acme", "Fine", returnsSteps())
		path := flowsPath + "/" + f["id"].(string)
		r := e.do(req{method: "PUT", path: path, tenant: "acme",
			body: map[string]any{"name": "Fine", "description": "", "enabled": true, "steps": broken, "version": 1}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.ElementsMatch(t, want, flowFieldErrors(t, r))
		assert.EqualValues(t, 1, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["version"])
	})
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"a blank name", map[string]any{"name": "  ", "steps": returnsSteps()}, "/name"},
		{"no steps", map[string]any{"name": "Empty", "steps": []any{}}, "/steps"},
		{"a duplicate step_no", map[string]any{"name": "Dup", "steps": []any{
			map[string]any{"step_no": 1, "prompt": "a"}, map[string]any{"step_no": 1, "prompt": "b"}}}, "/steps/1/step_no"},
		{"a timeout on a step that does not wait", map[string]any{"name": "T", "steps": []any{
			map[string]any{"step_no": 1, "prompt": "a", "timeout": 30}}}, "/steps/0/timeout"},
		{"a transfer target with a step", map[string]any{"name": "T", "steps": []any{
			map[string]any{"step_no": 1, "prompt": "a", "default_next": map[string]any{"kind": "transfer", "step_no": 1}}}},
			"/steps/0/default_next/step_no"},
		{"a missing prompt (contract)", map[string]any{"name": "T", "steps": []any{map[string]any{"step_no": 1}}}, "/steps/0/prompt"},
		{"an unknown target kind (contract)", map[string]any{"name": "T", "steps": []any{
			map[string]any{"step_no": 1, "prompt": "a", "default_next": map[string]any{"kind": "jump"}}}}, "/steps/0/default_next/kind"},
	}
	for _, c := range cases {
		t.Run(c.name+" is a 400 naming the field", func(t *testing.T) {
			r := e.do(req{method: "POST", path: flowsPath, tenant: "acme", body: c.body})
			require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Contains(t, flowFieldErrors(t, r), c.field)
		})
	}
}

// simulation is the decoded answer of the simulate operation.
type simulation struct {
	Calls []struct {
		Input *string  `json:"input"`
		Texts []string `json:"texts"`
		Taken []struct {
			StepNo  int             `json:"step_no"`
			Input   string          `json:"input"`
			Matched string          `json:"matched"`
			Action  string          `json:"action"`
			Then    json.RawMessage `json:"then"`
		} `json:"taken"`
	} `json:"calls"`
	State struct {
		StepNo  int               `json:"step_no"`
		Waiting bool              `json:"waiting"`
		Retries int               `json:"retries"`
		Slots   map[string]string `json:"slots"`
		Done    bool              `json:"done"`
		Outcome string            `json:"outcome"`
	} `json:"state"`
	Transfer       bool    `json:"transfer"`
	TransferReason *string `json:"transferReason"`
	InputsUsed     int     `json:"inputsUsed"`
}

// texts returns every text of the simulation, in order.
func (s simulation) texts() []string {
	var out []string
	for _, c := range s.Calls {
		out = append(out, c.Texts...)
	}
	return out
}

// actions returns "step:action" for every step taken, in order.
func (s simulation) actions() []string {
	var out []string
	for _, c := range s.Calls {
		for _, tk := range c.Taken {
			out = append(out, fmt.Sprintf("%d:%s", tk.StepNo, tk.Action))
		}
	}
	return out
}

func TestScriptFlowSimulate(t *testing.T) {
	e := newEnv(t)
	id := e.createFlow("acme", "Returns", returnsSteps())["id"].(string)
	simulate := func(t *testing.T, inputs ...string) simulation {
		t.Helper()
		if inputs == nil {
			inputs = []string{}
		}
		r := e.do(req{method: "POST", path: flowsPath + "/" + id + "/simulate", tenant: "acme", body: map[string]any{"inputs": inputs}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		var s simulation
		require.NoError(t, json.Unmarshal(r.Body, &s))
		return s
	}

	t.Run("a retry, a numbered choice and a regex answer complete the flow", func(t *testing.T) {
		s := simulate(t, "refund?", "1", "12345678", "never used")
		assert.Equal(t, 3, s.InputsUsed)
		require.Len(t, s.Calls, 4, "the start and one call per input used")
		assert.Nil(t, s.Calls[0].Input, "the first call is the start")
		assert.Equal(t, "refund?", *s.Calls[1].Input)
		assert.Equal(t, []string{"1:prompted", "2:waiting", "2:retry", "2:accepted", "3:waiting", "3:accepted"}, s.actions())
		assert.Equal(t, []string{"Hello, this is returns.", "Return or exchange?", "Please answer return or exchange.",
			"Your order number?", "Thanks, a label is on its way."}, s.texts())
		accepted := s.Calls[2].Taken[0]
		assert.Equal(t, "1", accepted.Input)
		assert.Equal(t, "Return", accepted.Matched)
		assert.JSONEq(t, `{"kind":"next","step_no":3}`, string(accepted.Then))
		assert.Empty(t, s.Calls[1].Taken[0].Then, "a retry stays at the step")
		assert.True(t, s.State.Done)
		assert.Equal(t, "completed", s.State.Outcome)
		assert.Equal(t, map[string]string{"kind": "Return", "order_no": "12345678"}, s.State.Slots)
		assert.False(t, s.Transfer)
		assert.Nil(t, s.TransferReason)
	})
	t.Run("a branch ends the flow with its text", func(t *testing.T) {
		s := simulate(t, "exchange")
		assert.Equal(t, []string{"1:prompted", "2:waiting", "2:accepted"}, s.actions())
		assert.Equal(t, "Exchanges are done in the shop.", s.texts()[len(s.texts())-1])
		assert.Equal(t, "completed", s.State.Outcome)
		assert.Equal(t, 2, s.State.StepNo)
	})
	t.Run("a branch transfers with its reason", func(t *testing.T) {
		s := simulate(t, "Agent", "ignored")
		assert.Equal(t, 1, s.InputsUsed)
		assert.True(t, s.Transfer)
		require.NotNil(t, s.TransferReason)
		assert.Equal(t, "wants_agent", *s.TransferReason)
		assert.Equal(t, "transferred", s.State.Outcome)
		assert.Equal(t, "Passing you on.", s.texts()[len(s.texts())-1])
	})
	t.Run("retries used up take on_invalid", func(t *testing.T) {
		s := simulate(t, "what?", "still no")
		assert.Equal(t, []string{"1:prompted", "2:waiting", "2:retry", "2:invalid"}, s.actions())
		assert.True(t, s.Transfer)
		assert.Equal(t, "cannot_answer", *s.TransferReason)
		assert.Equal(t, "transferred", s.State.Outcome)
	})
	t.Run("a failed check without retries or on_invalid hands over as invalid_input", func(t *testing.T) {
		s := simulate(t, "Return", "not a number")
		assert.Equal(t, []string{"1:prompted", "2:waiting", "2:accepted", "3:waiting", "3:invalid"}, s.actions())
		assert.True(t, s.Transfer)
		assert.Equal(t, "invalid_input", *s.TransferReason)
	})
	t.Run("without inputs the flow waits at its first waiting step", func(t *testing.T) {
		s := simulate(t)
		assert.Equal(t, 0, s.InputsUsed)
		assert.True(t, s.State.Waiting)
		assert.False(t, s.State.Done)
		assert.Equal(t, 2, s.State.StepNo)
		assert.Empty(t, s.State.Outcome)
		assert.Equal(t, map[string]string{}, s.State.Slots)
	})
	t.Run("more than 100 inputs is a 400", func(t *testing.T) {
		inputs := make([]string, 101)
		r := e.do(req{method: "POST", path: flowsPath + "/" + id + "/simulate", tenant: "acme", body: map[string]any{"inputs": inputs}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, flowFieldErrors(t, r), "/inputs")
	})
	t.Run("an unknown flow is a 404", func(t *testing.T) {
		r := e.do(req{method: "POST", path: flowsPath + "/" + domain.NewID(domain.PrefixScriptFlow) + "/simulate", tenant: "acme",
			body: map[string]any{"inputs": []string{}}})
		assert.Equal(t, http.StatusNotFound, r.Status)
		assert.Equal(t, "not_found", r.Code(t))
	})
}

func TestScriptFlowTenantIsolation(t *testing.T) {
	e := newEnv(t)
	f := e.createFlow("acme", "Returns", returnsSteps())
	path := flowsPath + "/" + f["id"].(string)
	put := map[string]any{"name": "Stolen", "description": "", "enabled": true, "steps": returnsSteps(), "version": 1}
	for _, c := range []req{
		{method: "GET", path: path},
		{method: "PUT", path: path, body: put},
		{method: "DELETE", path: path},
		{method: "POST", path: path + "/simulate", body: map[string]any{"inputs": []string{"1"}}},
	} {
		t.Run(c.method+" "+c.path[len(flowsPath):]+" in another tenant is 404", func(t *testing.T) {
			c.tenant = "globex"
			r := e.do(c)
			assert.Equal(t, http.StatusNotFound, r.Status, "%s", r.Body)
			assert.Equal(t, "not_found", r.Code(t))
		})
	}
	assert.Empty(t, e.do(req{method: "GET", path: flowsPath, tenant: "globex"}).JSON(t)["items"], "the list shows only the tenant's flows")
	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "Returns", r.JSON(t)["name"], "untouched by the other tenant")
	assert.EqualValues(t, 1, r.JSON(t)["version"])
}
