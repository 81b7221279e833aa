package main

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tenant replay, generated from the contract: every operation that names a
// resource (a path id, or an id in its query or body) is sent as tenant B
// naming tenant A's resources, once with a key bound to B and once with the
// platform key acting in B. Every answer must refuse (403/404), or, for an
// id in the query or body, answer exactly as for an id that does not
// exist; no answer may hold A's data; A's rows must be byte-identical
// afterwards. A control run of the same requests as A proves they were
// valid.
func TestReliabilityTenantReplay(t *testing.T) {
	e := newEnv(t)
	spec := loadSpecOps(t)
	a := buildTenantFixtures(t, e, spec, "tenant-a")
	_, keyB := e.createKey(ptr("tenant-b"), "admin", "chat")
	cases := replayCases(spec)
	require.NotEmpty(t, cases)

	before := tenantSnapshot(t, e, a.tenant)
	var findings []string
	requests := 0
	for i, c := range cases {
		f, n := e.replayAsB(t, spec, c, a, keyB, i)
		findings, requests = append(findings, f...), requests+n
	}
	after := tenantSnapshot(t, e, a.tenant)
	findings = append(findings, snapshotDiff(before, after)...)

	_, keyA := e.createKey(ptr(a.tenant), "admin", "chat")
	failed, n := e.controlRun(t, spec, cases, a, keyA)
	requests += n
	assert.NotEqual(t, after, tenantSnapshot(t, e, a.tenant), "the control run's writes show in the snapshot, so it would see B's")

	reportFigure(t, "tenant replay", "operations replayed", countOps(cases))
	reportFigure(t, "tenant replay", "requests sent", requests)
	reportFigure(t, "tenant replay", "leaks found", len(findings))
	reportFigure(t, "tenant replay", "control exceptions", len(controlExceptions()))
	assert.Empty(t, findings, "tenant B reached tenant A's data:\n%s", strings.Join(findings, "\n"))
	assert.Empty(t, failed, "the control run as tenant A failed, so the replay proved nothing for:\n%s", strings.Join(failed, "\n"))
	assert.NotContains(t, e.logs.String(), "panic serving request")
}

// replayCase is one request to replay: an operation and where it names
// tenant A's resource ("path", "query.kbId", "/kbIds").
type replayCase struct {
	op      specOp
	variant string
}

// replayCases lists every operation that names a resource: once with its
// path ids, or, without any, once per id in its query or body.
func replayCases(spec specOps) []replayCase {
	var out []replayCase
	for _, op := range spec {
		if op.Public {
			// A public operation has no caller's tenant to replay as: its
			// credential (a share link's token) names the tenant, on purpose.
			continue
		}
		path, other := op.idFields()
		if len(path) > 0 {
			out = append(out, replayCase{op: op, variant: "path"})
			continue
		}
		for _, f := range other {
			out = append(out, replayCase{op: op, variant: f})
		}
	}
	return out
}

func (c replayCase) String() string { return c.op.ID + " [" + c.variant + "]" }

// build is buildRequest for a replay case.
func (c replayCase) build(t *testing.T, e *env, spec specOps, ids idSource, seq int) builtRequest {
	t.Helper()
	variant := c.variant
	if variant == "path" {
		variant = ""
	}
	return e.buildRequest(t, spec, c.op, ids, variant, seq)
}

// replayCredential is how tenant B calls.
type replayCredential struct{ name, key string }

// replayAsB sends the case as tenant B both ways and judges the answers.
// An operation without X-Tenant-Id is not tenant-scoped: there the
// platform key may act anywhere (the contract says so), so only B's own
// key is replayed.
func (e *env) replayAsB(t *testing.T, spec specOps, c replayCase, a *tenantFixtures, keyB string, seq int) ([]string, int) {
	t.Helper()
	named := c.build(t, e, spec, a.idSource, seq)
	var ghost builtRequest
	if c.variant != "path" {
		ghost = c.build(t, e, spec, a.ghost(), seq)
	}
	creds := []replayCredential{{"B's key", keyB}}
	if c.op.TenantScoped {
		creds = append(creds, replayCredential{"platform key in B", ""})
	}
	var findings []string
	sentN := 0
	for _, cr := range creds {
		got := e.sendWire(named.wire(cr.key, "tenant-b"))
		sentN++
		var want *wireAnswer
		if c.variant != "path" {
			g := e.sendWire(ghost.wire(cr.key, "tenant-b"))
			want, sentN = &g, sentN+1
		}
		if msg := judgeReplay(got, want, named, a); msg != "" {
			findings = append(findings, fmt.Sprintf("%s as %s: %s %s: %s", c, cr.name, named.method, named.path, msg))
		}
	}
	return findings, sentN
}

// judgeReplay says what is wrong with tenant B's answer, "" when nothing.
// want is B's answer for a nonexistent id in the same place (nil for a
// path id, which must be 403 or 404).
func judgeReplay(got wireAnswer, want *wireAnswer, r builtRequest, a *tenantFixtures) string {
	switch {
	case got.err != nil:
		return "no answer: " + got.err.Error()
	case got.contract != nil:
		return got.contract.Error()
	case got.Status >= 500:
		return fmt.Sprintf("answered %d: %.300s", got.Status, got.Body)
	}
	if leaked := leakedMarkers(got.Body, r, a); len(leaked) > 0 {
		return fmt.Sprintf("the answer holds tenant A's %v: %.300s", leaked, got.Body)
	}
	refused := got.Status == http.StatusNotFound || got.Status == http.StatusForbidden
	if refused || (want != nil && got.Status == want.Status && problemCode(got.response) == problemCode(want.response)) {
		return ""
	}
	if want == nil {
		return fmt.Sprintf("answered %d, not 403 or 404: %.300s", got.Status, got.Body)
	}
	return fmt.Sprintf("answered %d %q for tenant A's id but %d %q for an id that does not exist: %.300s",
		got.Status, problemCode(got.response), want.Status, problemCode(want.response), got.Body)
}

// leakedMarkers lists what of tenant A the body holds that the request did
// not name itself: the marker text in A's resources, or one of A's ids.
func leakedMarkers(body []byte, r builtRequest, a *tenantFixtures) []string {
	var out []string
	if bytes.Contains(body, []byte(a.marker)) {
		out = append(out, "marker text")
	}
	for _, k := range sortedMapKeys(a.ids) {
		id := a.ids[k]
		if id == a.tenant || strings.Contains(r.path, id) || bytes.Contains(r.body, []byte(id)) {
			continue
		}
		if bytes.Contains(body, []byte(id)) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// countOps counts the distinct operations of the cases.
func countOps(cases []replayCase) int {
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.op.ID] = true
	}
	return len(seen)
}
