package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mutation is one hostile request and what its answer must be.
type mutation struct {
	op, kind, what string
	p              wireRequest
	// want lists the statuses the answer may have (nil: any under 500);
	// code and field, when set, are the problem's code and one of its
	// field errors when it has one of them.
	want        []int
	code, field string
}

// Hostile inputs, driven by the contract: every operation (on tenant A's
// fixtures) gets requests with each body field of the wrong type, past its
// length, bounds or enum, not UTF-8; bodies over the limit, nested too
// deep, with trailing data, empty, of the wrong Content-Type; query and
// path parameters its schema refuses; and a few bodies that trickle in. No
// answer may be a 5xx, every error must be problem+json with a code and
// match the contract, each mutation gets the answer its kind calls for,
// and nothing may panic. make test sends a sample of each operation's
// mutations (every kind still appears); make reliability sends them all.
func TestReliabilityHostileInputs(t *testing.T) {
	e := newEnv(t)
	spec := loadSpecOps(t)
	a := buildTenantFixtures(t, e, spec, "tenant-a")
	ops := slices.Clone(spec)
	slices.SortStableFunc(ops, func(x, y specOp) int { return cmp.Compare(x.controlRank(), y.controlRank()) })

	perOp := reliabilitySize(8, 0)
	var all []mutation
	for i, op := range ops {
		all = append(all, sampleMutations(e.hostileMutations(t, spec, op, a, i), perOp, i)...)
	}
	all = append(all, e.slowBodies(t, spec, ops, a, reliabilitySize(3, 1000))...)
	if *reliabilityFull {
		all = append(all, e.stalledBody(t, spec, a))
	}
	require.NotEmpty(t, all)

	tally := hostileTally{perKind: map[string]int{}}
	for _, m := range all {
		tally.add(m, e.sendWire(m.p))
	}
	tally.report(t)
	assert.Zero(t, tally.fiveXX, "answers with a 5xx")
	assert.Zero(t, tally.nonProblem, "errors that are not problem+json with a code")
	assert.Empty(t, tally.failures, "%d hostile requests got the wrong answer:\n%s", len(tally.failures), strings.Join(tally.failures, "\n"))
	assert.NotContains(t, e.logs.String(), "panic serving request", "a hostile request made the service panic")
}

// hostileMutations lists every mutation of one operation, from a valid
// request on tenant A's fixtures (root key in A).
func (e *env) hostileMutations(t *testing.T, spec specOps, op specOp, a *tenantFixtures, seq int) []mutation {
	t.Helper()
	base := e.buildRequest(t, spec, op, a.idSource, "", 2000+seq)
	bp := base.wire("", a.tenant)
	out := append(pathMutations(op, bp), queryMutations(op, bp)...)
	switch op.BodyType {
	case "":
		out = append(out, bodylessMutations(bp)...)
	case "multipart/form-data":
		out = append(out, formMutations(t, op, a.idSource, bp, e.cfg.MaxUploadBytes)...)
	default:
		out = append(out, jsonMutations(op, base.json, bp, e.cfg.MaxBodyBytes)...)
	}
	for i := range out {
		out[i].op = op.ID
	}
	return out
}

// sampleMutations keeps n of an operation's mutations (all when n is 0),
// taking the kinds in turn from a place that moves with the operation, so
// a sample still has every kind somewhere.
func sampleMutations(ms []mutation, n, offset int) []mutation {
	if n == 0 || len(ms) <= n {
		return ms
	}
	var kinds []string
	byKind := map[string][]mutation{}
	for _, m := range ms {
		if _, ok := byKind[m.kind]; !ok {
			kinds = append(kinds, m.kind)
		}
		byKind[m.kind] = append(byKind[m.kind], m)
	}
	var out []mutation
	for round := 0; len(out) < n; round++ {
		for i := range kinds {
			k := kinds[(i+offset)%len(kinds)]
			if round < len(byKind[k]) && len(out) < n {
				out = append(out, byKind[k][(round+offset)%len(byKind[k])])
			}
		}
	}
	return out
}

// slowBodies sends n valid bodies of creating operations a few bytes every
// 15 ms: each must be read to its end and then answered as a valid body
// (not 400, which a body cut short would get, nor 408, 413 or 415).
func (e *env) slowBodies(t *testing.T, spec specOps, ops []specOp, a *tenantFixtures, n int) []mutation {
	t.Helper()
	var out []mutation
	for i, op := range ops {
		if len(out) == n || op.BodyType != "application/json" || op.controlRank() == 5 || !slices.Contains(op.Statuses, 201) {
			continue
		}
		b := e.buildRequest(t, spec, op, a.idSource, "", 3000+i)
		m := mutation{op: op.ID, kind: "slow body", what: fmt.Sprintf("%d bytes, 7 every 15 ms", len(b.body)), p: b.wire("", a.tenant)}
		m.p.trickle = 15 * time.Millisecond
		m.want = slices.DeleteFunc(slices.Clone(op.Statuses), func(s int) bool {
			return s == 400 || s == 408 || s == 413 || s == 415 || s >= 500
		})
		out = append(out, m)
	}
	return out
}

// stalledBody sends half a body and then nothing: the body deadline must
// answer 408 request_timeout.
func (e *env) stalledBody(t *testing.T, spec specOps, a *tenantFixtures) mutation {
	t.Helper()
	op := spec.byID(t, "createKnowledgeBase")
	b := e.buildRequest(t, spec, op, a.idSource, "", 4000)
	m := mutation{op: op.ID, kind: "stalled body", what: "half a body, then silence", p: b.wire("", a.tenant),
		want: []int{408}, code: "request_timeout"}
	m.p.body, m.p.stall = b.body[:len(b.body)/2], true
	return m
}

// hostileTally counts the answers of the hostile requests.
type hostileTally struct {
	sent               int
	perKind            map[string]int
	fiveXX, nonProblem int
	failures           []string
}

// add judges one answer.
func (h *hostileTally) add(m mutation, got wireAnswer) {
	h.sent++
	h.perKind[m.kind]++
	fail := func(format string, args ...any) {
		h.failures = append(h.failures, fmt.Sprintf("%s %s (%s) %s %.120s: ", m.op, m.kind, m.what, m.p.method, m.p.path)+fmt.Sprintf(format, args...))
	}
	switch {
	case got.err != nil:
		fail("no answer: %v", got.err)
		return
	case got.Status >= 500:
		h.fiveXX++
		fail("answered %d: %.300s", got.Status, got.Body)
		return
	case got.Status >= 400 && (got.Header.Get("Content-Type") != "application/problem+json" || problemCode(got.response) == ""):
		h.nonProblem++
		fail("answered %d %q without a problem code: %.200s", got.Status, got.Header.Get("Content-Type"), got.Body)
		return
	case got.contract != nil:
		fail("%v", got.contract)
		return
	}
	if m.want != nil && !slices.Contains(m.want, got.Status) {
		fail("answered %d, want %v: %.300s", got.Status, m.want, got.Body)
		return
	}
	if m.want == nil || got.Status < 400 {
		return
	}
	if m.code != "" && problemCode(got.response) != m.code {
		fail("answered %d %q, want code %q: %.300s", got.Status, problemCode(got.response), m.code, got.Body)
	} else if m.field != "" && !slices.Contains(problemFields(got.response), m.field) {
		fail("answered %d without a field error on %s: %.300s", got.Status, m.field, got.Body)
	}
}

// report writes the figures of the hostile inputs.
func (h *hostileTally) report(t *testing.T) {
	t.Helper()
	var kinds []string
	for _, k := range sortedMapKeys(h.perKind) {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, h.perKind[k]))
	}
	reportFigure(t, "hostile inputs", "requests sent", h.sent)
	reportFigure(t, "hostile inputs", "mutations per kind", strings.Join(kinds, ", "))
	reportFigure(t, "hostile inputs", "5xx answers", h.fiveXX)
	reportFigure(t, "hostile inputs", "errors not problem+json", h.nonProblem)
	reportFigure(t, "hostile inputs", "wrong answers", len(h.failures))
}
