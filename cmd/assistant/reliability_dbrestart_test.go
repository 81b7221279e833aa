package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// dbrOutageBound is the longest a request may take while the database is
// down. A fast shutdown closes every server connection at once and a
// refused connect on loopback fails at once, so a request has nothing to
// wait for; the readiness probe's own budget is 2 s. 5 s leaves room for
// a slow, shared 2-core machine, and is still far below anything a client
// would take for a hang (and below dbrClientTimeout, which catches one).
const dbrOutageBound = 5 * time.Second

// dbrPropagationBound is how soon a change made through one replica must
// reach the other's cache once both are back: a notification arrives in
// milliseconds, and the caches' TTL (60 s) is what it must beat.
const dbrPropagationBound = 10 * time.Second

// dbrTimeline marks the outage: the stop was asked at stopBegin and done at
// stopEnd; the start was asked at startBegin and done at startEnd.
type dbrTimeline struct {
	stopBegin, stopEnd, startBegin, startEnd time.Time
}

// during reports whether s ran entirely while the database was down.
func (tl dbrTimeline) during(s dbrSample) bool {
	return !s.start.Before(tl.stopEnd) && !s.end.After(tl.startBegin)
}

// TestReliabilityDatabaseRestart stops PostgreSQL under two replicas while
// conversations and uploads are in flight, keeps the load going through
// the outage, starts it again, and checks the service recovers on its own:
// during the outage every request fails fast with 503 unavailable and
// /readyz says not ready; after it, the interrupted jobs finish, and the
// LISTEN connections come back so a change made through one replica
// reaches the other's cache long before the cache's TTL would.
func TestReliabilityDatabaseRestart(t *testing.T) {
	const part = "database restart"
	cluster, url := dbrOwnCluster(t)
	one := startEnv(t, testConfig(t, url))
	two := startEnv(t, one.cfg)
	dbrLogErrorsOnFailure(t, one, two)
	one.waitReplicasListening(2)

	load := dbrSeed(t, one, two, reliabilitySize(4, 8))
	ctx, stopLoad := context.WithCancel(context.Background())
	waitLoad := load.run(ctx)
	t.Cleanup(func() { stopLoad(); waitLoad() }) // should the test stop early
	time.Sleep(300 * time.Millisecond)           // the load is under way when the database goes
	inFlight := dbrUploadBurst(t, one, two, load.kb, reliabilitySize(6, 24))
	unfinished := dbrUnfinishedJobs(t, one)
	tl := dbrOutage(t, cluster, one, two, reliabilitySize(3*time.Second, 15*time.Second))
	firstOK := dbrFirstSuccess(t, load)
	recovered := firstOK.Sub(tl.startEnd)
	listenBack := dbrCheckListeners(t, one, tl)
	time.Sleep(500 * time.Millisecond) // some load after the recovery too
	stopLoad()
	waitLoad()

	samples := load.all()
	dbrCheckSamples(t, one, two, tl, samples)
	dbrCheckReady(t, one, two)
	jobs := dbrCheckJobs(t, one, two, append(inFlight, dbrAcceptedJobs(samples)...), len(inFlight))
	propagated := dbrCheckPropagation(t, one, two)

	outage := dbrOutageSamples(tl, samples)
	reportFigure(t, part, "outage length (stop done to start begun)", tl.startBegin.Sub(tl.stopEnd).Round(time.Millisecond))
	reportFigure(t, part, "requests during the outage", len(outage))
	reportFigure(t, part, "statuses during the outage", dbrStatuses(outage))
	reportFigure(t, part, "max latency during the outage (bound 5 s)", dbrMaxLatency(outage).Round(time.Millisecond))
	reportFigure(t, part, "all requests / 500s / transport errors", fmt.Sprintf("%d / %d / %d",
		len(samples), dbrCount(samples, func(s dbrSample) bool { return s.res.Status == 500 }),
		dbrCount(samples, func(s dbrSample) bool { return s.err != nil })))
	reportFigure(t, part, "time to recover (start done to first 2xx)", recovered.Round(time.Millisecond))
	reportFigure(t, part, "jobs unfinished when the database stopped", unfinished)
	reportFigure(t, part, "jobs after recovery", jobs)
	reportFigure(t, part, "LISTEN back on both replicas after start", listenBack.Round(time.Millisecond))
	reportFigure(t, part, "intent rule change seen by the other replica after", propagated.Round(time.Millisecond))
}

// dbrLogErrorsOnFailure logs the replicas' error lines (the causes of 500s)
// when the test fails.
func dbrLogErrorsOnFailure(t *testing.T, replicas ...*env) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for i, e := range replicas {
			for _, line := range strings.Split(e.logs.String(), "\n") {
				if strings.Contains(line, `"level":"ERROR"`) {
					t.Logf("replica %d: %s", i+1, line)
				}
			}
		}
	})
}

// dbrSeed indexes the FAQ and opens a chat session per load worker, half
// on each replica, and returns the load over both.
func dbrSeed(t *testing.T, one, two *env, workers int) *dbrLoad {
	t.Helper()
	kb := one.createKB("", "acme", "faq")["id"].(string)
	_, job := one.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	load := &dbrLoad{replicas: []*env{one, two}, kb: kb, client: &http.Client{Timeout: dbrClientTimeout}}
	for w := range workers {
		load.sessions = append(load.sessions, []*env{one, two}[w%2].newChat("acme", nil).session)
	}
	return load
}

// dbrBurstParagraphs sizes the burst's documents (about 300 KB, 1,500
// chunks): each takes a worker some hundred milliseconds to index, longer
// than its upload takes, so the jobs are still queued or running when the
// database stops.
const dbrBurstParagraphs = 1500

// dbrUploadBurst uploads n documents through both replicas, one after the
// other, and returns their jobs: most are queued or running when the
// database stops right after.
func dbrUploadBurst(t *testing.T, one, two *env, kb string, n int) []string {
	t.Helper()
	var jobs []string
	for i := range n {
		e := []*env{one, two}[i%2]
		r := e.upload(upload{kbID: kb, partName: fmt.Sprintf("locker-%d.txt", i), content: dbrDocument(i, dbrBurstParagraphs)})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		jobs = append(jobs, r.JSON(t)["job"].(map[string]any)["id"].(string))
	}
	return jobs
}

// dbrUnfinishedJobs counts the jobs still queued or running.
func dbrUnfinishedJobs(t *testing.T, e *env) int {
	t.Helper()
	var n int
	require.NoError(t, e.db.QueryRow(context.Background(),
		"SELECT count(*) FROM index_jobs WHERE state NOT IN ('succeeded', 'failed')").Scan(&n))
	return n
}

// dbrOutage stops the database (fast shutdown: clients are disconnected),
// checks that both replicas report not ready while it is down, and starts
// it again after about length.
func dbrOutage(t *testing.T, c *pglocal.Cluster, one, two *env, length time.Duration) dbrTimeline {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var tl dbrTimeline
	tl.stopBegin = time.Now()
	require.NoError(t, c.Shutdown(ctx, pglocal.ShutdownFast))
	tl.stopEnd = time.Now()
	for _, e := range []*env{one, two} {
		r := e.do(req{method: "GET", path: "/readyz", key: "-"})
		assert.Equal(t, http.StatusServiceUnavailable, r.Status, "not ready while the database is down: %s", r.Body)
		assert.Equal(t, "unavailable", r.Code(t))
	}
	time.Sleep(length - time.Since(tl.stopEnd))
	tl.startBegin = time.Now()
	require.NoError(t, c.Start(ctx))
	tl.startEnd = time.Now()
	return tl
}

// dbrFirstSuccess waits for the load's first 2xx answer that began after
// the database was back, and returns when it came.
func dbrFirstSuccess(t *testing.T, load *dbrLoad) time.Time {
	t.Helper()
	since := time.Now()
	var first time.Time
	require.Eventually(t, func() bool {
		for _, s := range load.all() {
			if s.start.After(since) && s.err == nil && s.res.Status/100 == 2 && s.kind != "readyz" &&
				(first.IsZero() || s.end.Before(first)) {
				first = s.end
			}
		}
		return !first.IsZero()
	}, 30*time.Second, 10*time.Millisecond, "no request succeeded after the database came back")
	return first
}

// dbrCheckSamples judges every request of the load: none hangs or answers
// 500; every failure is 503 unavailable as problem+json, within the
// contract; during the outage all fail, and fast; every stream that began
// ends with a done or error event.
func dbrCheckSamples(t *testing.T, one, two *env, tl dbrTimeline, samples []dbrSample) {
	t.Helper()
	envs := []*env{one, two}
	undeclared := map[string]bool{}
	for _, s := range samples {
		what := fmt.Sprintf("%s on replica %d at %+.3fs after the stop", s.kind, s.replica+1, s.start.Sub(tl.stopEnd).Seconds())
		if !assert.NoError(t, s.err, "%s: no request hangs or loses its connection", what) {
			continue
		}
		assert.Contains(t, []int{200, 201, 202, 503}, s.res.Status, "%s: %s", what, s.res.Body)
		if s.res.Status == http.StatusServiceUnavailable {
			assert.Equal(t, "unavailable", s.code(), "%s: %s", what, s.res.Body)
		}
		switch {
		case s.res.Status == http.StatusOK && s.kind == "stream":
			assert.Contains(t, []string{"done", "error"}, s.lastEvent, "%s: a stream ends with done or error", what)
		case s.res.Status == http.StatusServiceUnavailable:
			if op := envs[s.replica].checkUnavailable(s.req, s.res); op != "" {
				undeclared[op] = true
			}
		default:
			envs[s.replica].checkContract(s.req, s.res)
		}
	}
	if len(undeclared) > 0 {
		t.Logf("the contract declares no 503 for %s; the answers were checked against its Problem schema",
			strings.Join(slices.Sorted(maps.Keys(undeclared)), ", "))
	}
	outage := dbrOutageSamples(tl, samples)
	require.NotEmpty(t, outage, "requests were sent while the database was down")
	for _, s := range outage {
		what := fmt.Sprintf("%s on replica %d at %+.3fs after the stop", s.kind, s.replica+1, s.start.Sub(tl.stopEnd).Seconds())
		assert.Equal(t, http.StatusServiceUnavailable, s.res.Status, "%s fails while the database is down: %s", what, s.res.Body)
		assert.LessOrEqual(t, s.latency(), dbrOutageBound, "%s fails fast", what)
	}
}

// checkUnavailable checks a 503 answer: against the contract where the
// operation declares 503, otherwise (openapi.yaml declares it on few
// operations, though any that reads the database can answer it) as
// problem+json against the contract's Problem schema, with the same
// X-Request-Id rule. It returns the operation when it declares no 503.
func (e *env) checkUnavailable(hr *http.Request, out response) string {
	e.t.Helper()
	route, _, err := e.router.FindRoute(hr)
	if err != nil || route.Operation.Responses.Status(http.StatusServiceUnavailable) != nil ||
		route.Operation.Responses.Default() != nil {
		e.checkContract(hr, out)
		return ""
	}
	assert.NotEmpty(e.t, out.Header.Get("X-Request-Id"), "every response carries X-Request-Id")
	assert.Equal(e.t, "application/problem+json", out.Header.Get("Content-Type"), "%s", out.Body)
	var body any
	require.NoError(e.t, json.Unmarshal(out.Body, &body), "%s", out.Body)
	problem := route.Spec.Components.Schemas["Problem"].Value
	assert.NoError(e.t, problem.VisitJSON(body), "a 503 is a Problem: %s", out.Body)
	return route.Method + " " + route.Path
}

// dbrCheckReady waits until both replicas report ready again.
func dbrCheckReady(t *testing.T, one, two *env) {
	t.Helper()
	for _, e := range []*env{one, two} {
		require.Eventually(t, func() bool {
			return e.do(req{method: "GET", path: "/readyz", key: "-"}).Status == http.StatusOK
		}, 30*time.Second, 20*time.Millisecond, "ready again without a restart")
	}
}

// dbrCheckJobs waits for every accepted upload's job: all must succeed, and
// each of the burst's documents (the first burst jobs) must be found
// through both replicas: the in-memory indexes follow the other replica's
// writes, including those made right after the restart. It returns a
// summary.
func dbrCheckJobs(t *testing.T, one, two *env, jobs []string, burst int) string {
	t.Helper()
	retried := 0
	for _, id := range jobs {
		job := one.waitJob("acme", id)
		assert.Equal(t, "succeeded", job["state"], "job %s resumes after the outage: %v", id, job)
		if job["attempts"].(float64) > 1 {
			retried++
		}
	}
	for i := range burst {
		for n, e := range []*env{one, two} {
			assert.Eventually(t, func() bool {
				items := e.search("acme", map[string]any{"query": dbrLockerCode(i)}).JSON(t)["items"].([]any)
				return len(items) > 0
			}, dbrPropagationBound, 20*time.Millisecond, "replica %d finds document %d", n+1, i)
		}
	}
	return fmt.Sprintf("%d accepted, %d succeeded, %d needed more than one attempt", len(jobs),
		dbrCount(dbrJobStates(t, one, jobs), func(s string) bool { return s == "succeeded" }), retried)
}

// dbrJobStates reads the jobs' states.
func dbrJobStates(t *testing.T, e *env, jobs []string) []string {
	t.Helper()
	var out []string
	for _, id := range jobs {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/index/jobs/" + id, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		out = append(out, r.JSON(t)["state"].(string))
	}
	return out
}

// dbrCheckListeners waits until both replicas listen again and returns how
// long after the database's start that was.
func dbrCheckListeners(t *testing.T, e *env, tl dbrTimeline) time.Duration {
	t.Helper()
	e.waitReplicasListening(2)
	return time.Since(tl.startEnd)
}

// dbrCheckPropagation caches replica two's (empty) intent rules, creates a
// rule through replica one, and waits for replica two's complete-flow test
// to answer with it: only the notification can drop two's cached rules
// this soon. It returns how long that took.
func dbrCheckPropagation(t *testing.T, one, two *env) time.Duration {
	t.Helper()
	const message = "tell me about the parrot"
	reply := func(e *env) map[string]any {
		return e.dryRun(t, "acme", map[string]any{"message": message})["reply"].(map[string]any)
	}
	require.NotEqual(t, "fixed", reply(two)["responseType"], "no rule yet; replica two caches that")
	one.create(t, "acme", "/admin/intent-rules", map[string]any{"name": "Parrot", "keywords": []string{"parrot"},
		"responseType": "fixed", "fixedText": "Polly is fine.", "priority": 10})
	created := time.Now()
	assert.Equal(t, "fixed", reply(one)["responseType"], "the writer sees its rule at once")
	require.Eventually(t, func() bool { return reply(two)["responseType"] == "fixed" }, dbrPropagationBound, 20*time.Millisecond,
		"replica two drops its cached rules on the notification, well before their 60 s TTL")
	return time.Since(created)
}

// dbrAcceptedJobs are the jobs of the load's accepted uploads.
func dbrAcceptedJobs(samples []dbrSample) []string {
	var out []string
	for _, s := range samples {
		if s.jobID != "" {
			out = append(out, s.jobID)
		}
	}
	return out
}

// dbrOutageSamples are the samples sent and answered while the database
// was down.
func dbrOutageSamples(tl dbrTimeline, samples []dbrSample) []dbrSample {
	var out []dbrSample
	for _, s := range samples {
		if tl.during(s) {
			out = append(out, s)
		}
	}
	return out
}

// dbrStatuses counts samples by status, e.g. "503×120".
func dbrStatuses(samples []dbrSample) string {
	counts := map[int]int{}
	for _, s := range samples {
		counts[s.res.Status]++
	}
	var parts []string
	for status, n := range counts {
		parts = append(parts, fmt.Sprintf("%d×%d", status, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func dbrMaxLatency(samples []dbrSample) time.Duration {
	var m time.Duration
	for _, s := range samples {
		m = max(m, s.latency())
	}
	return m
}

func dbrCount[T any](xs []T, f func(T) bool) int {
	n := 0
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}
