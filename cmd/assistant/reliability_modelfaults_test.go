package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tenant's model configuration in the faults test: attempts of half a
// second, so that faults only a timeout ends cost little, and two retries,
// so that the retry policy shows.
const (
	mfAttemptTimeout = 500 * time.Millisecond
	mfRetries        = 2
)

// mfSlack is what a reply may take besides the model's attempts and the
// waits between them: retrieval, the prompt and storing the reply, which
// take milliseconds, on a slow shared 2-core machine.
const mfSlack = 10 * time.Second

// mfReplyBound is the longest a reply may take under any fault: every
// attempt running to its timeout, and every wait between two attempts as
// long as the Retry-After (longer than the backoff's 250 and 500 ms).
const mfReplyBound = (mfRetries+1)*mfAttemptTimeout + mfRetries*mfRetryAfter*time.Second + mfSlack

// mfClientTimeout ends a request the service never finishes, so a hang
// fails the test instead of stalling it.
const mfClientTimeout = time.Minute

// mfCase is one fault, for a JSON reply or a streamed one.
type mfCase struct {
	fault  mfFault
	stream bool
}

func (c mfCase) String() string {
	if c.stream {
		return string(c.fault) + ", streamed"
	}
	return string(c.fault) + ", JSON"
}

// wantAttempts is what the client's retry policy allows: a failed
// attempt is tried again, up to mfRetries times, unless part of a stream
// already reached the customer (another attempt would repeat it).
func (c mfCase) wantAttempts() int {
	if c.stream && (c.fault == mfResetMidway || c.fault == mfStall) {
		return 1
	}
	return mfRetries + 1
}

// mfOutcome is what one case measured.
type mfOutcome struct {
	attempts    int
	took        time.Duration
	clientError bool
}

// TestReliabilityModelFaults breaks the model provider in every way a
// network and a provider can, for JSON replies and streams, and checks
// through the HTTP API that the client retries a bounded number of times
// (counted at the fake, matching the configured policy), and that the
// customer then gets an honest hand-off (ANSWERING.md: a question the
// assistant cannot answer goes to a person; provider failure is
// provider_unavailable), without a 5xx, within a bounded time, and, for
// streams, with a final done event.
func TestReliabilityModelFaults(t *testing.T) {
	const part = "model faults"
	e, _ := labEnv(t) // the FAQ covers the question, so the model is called
	faults := []mfFault{mfTimeout, mfThrottled, mfServerError, mfResetBefore, mfResetMidway, mfStall}
	attempts := map[mfCase]map[int]bool{}
	var injected, clientErrors int
	var slowest time.Duration
	for round := range reliabilitySize(1, 3) {
		for _, fault := range faults {
			for _, stream := range []bool{false, true} {
				cs := mfCase{fault: fault, stream: stream}
				t.Run(fmt.Sprintf("%s (round %d)", cs, round+1), func(t *testing.T) {
					out := mfRun(t, e, cs)
					injected++
					if attempts[cs] == nil {
						attempts[cs] = map[int]bool{}
					}
					attempts[cs][out.attempts] = true
					slowest = max(slowest, out.took)
					if out.clientError {
						clientErrors++
					}
				})
			}
		}
	}
	reportFigure(t, part, "faults injected", fmt.Sprintf("%d (%d kinds × JSON and stream × %d rounds)",
		injected, len(faults), reliabilitySize(1, 3)))
	for _, fault := range faults {
		reportFigure(t, part, fmt.Sprintf("attempts per reply, %s (retries %d)", fault, mfRetries), fmt.Sprintf("JSON %s, stream %s",
			mfCounts(attempts[mfCase{fault: fault}]), mfCounts(attempts[mfCase{fault: fault, stream: true}])))
	}
	reportFigure(t, part, "client errors (5xx or broken replies)", clientErrors)
	reportFigure(t, part, fmt.Sprintf("max reply time (bound %s)", mfReplyBound), slowest.Round(time.Millisecond))
}

// mfCounts lists the attempt counts seen, e.g. "3", or "2/3" if they
// differed between rounds.
func mfCounts(seen map[int]bool) string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, fmt.Sprint(n))
	}
	return strings.Join(out, "/")
}

// mfRun points the tenant at a fake injecting cs's fault, asks the covered
// question once, and checks the attempts and the reply.
func mfRun(t *testing.T, e *env, cs mfCase) mfOutcome {
	t.Helper()
	fake := mfNewFakeModel(t, cs.fault)
	mfUseModel(t, e, fake.URL())
	c := e.newChat("acme", nil)
	start := time.Now()
	var reply map[string]any
	var ok bool
	if cs.stream {
		reply, ok = mfStreamed(t, c, cs.wantAttempts() == 1)
	} else {
		reply, ok = mfJSON(t, c)
	}
	out := mfOutcome{took: time.Since(start), clientError: !ok}
	got := fake.Attempts()
	out.attempts = len(got)
	assert.Len(t, got, cs.wantAttempts(), "bounded retries, as the policy says")
	for _, a := range got {
		assert.Equal(t, cs.stream, a.stream, "a streamed reply streams from the model; a JSON one does not")
	}
	if cs.fault == mfThrottled {
		for i := 1; i < len(got); i++ {
			assert.GreaterOrEqual(t, got[i].at.Sub(got[i-1].at), mfRetryAfter*time.Second, "the Retry-After is obeyed")
		}
	}
	assert.LessOrEqual(t, out.took, mfReplyBound, "the whole reply is bounded")
	if ok {
		mfCheckHandOff(t, reply)
	}
	return out
}

// mfUseModel makes url the tenant's chat model, with the test's timeout
// and retries.
func mfUseModel(t *testing.T, e *env, url string) {
	t.Helper()
	path := "/api/v1/admin/llm/config/chat"
	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": url, "apiKey": "sk-test-000000000000", "model": "m",
		"timeoutMs": mfAttemptTimeout.Milliseconds(), "retries": mfRetries, "version": r.JSON(t)["version"],
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// mfJSON asks the covered question for a JSON reply. ok is false when the
// service failed the client (a 5xx, a broken connection, no reply).
func mfJSON(t *testing.T, c *chat) (map[string]any, bool) {
	t.Helper()
	res, body, err := mfPost(c, "application/json")
	if !assert.NoError(t, err, "the reply arrives") {
		return nil, false
	}
	hr, _ := http.NewRequest("POST", c.e.srv.URL+c.path("/messages"), nil)
	c.e.checkContract(hr, response{Status: res.StatusCode, Header: res.Header, Body: body})
	if !assert.Equal(t, http.StatusOK, res.StatusCode, "a provider failure is no client error: %s", body) {
		return nil, false
	}
	var reply map[string]any
	require.NoError(t, json.Unmarshal(body, &reply))
	return reply, true
}

// mfStreamed asks the covered question as a stream and returns its done
// event's reply. ok is false when the service failed the client (a 5xx, a
// stream cut off without done or error). With midway set the model's
// stream breaks off after part of the answer reached the customer, who
// must then see it replaced by the hand-off.
func mfStreamed(t *testing.T, c *chat, midway bool) (map[string]any, bool) {
	t.Helper()
	res, body, err := mfPost(c, "text/event-stream")
	if !assert.NoError(t, err, "the stream ends") {
		return nil, false
	}
	if !assert.Equal(t, http.StatusOK, res.StatusCode, "%s", body) {
		return nil, false
	}
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	events := readSSE(t, &http.Response{Body: io.NopCloser(bytes.NewReader(body)), Request: res.Request})
	require.NotEmpty(t, events)
	last := events[len(events)-1]
	if !assert.Contains(t, []string{"done", "error"}, last.name, "every stream ends with done or error") {
		return nil, false
	}
	terminal := 0
	for _, ev := range events {
		if ev.name == "done" || ev.name == "error" {
			terminal++
		}
	}
	assert.Equal(t, 1, terminal, "one final event, the last")
	assert.Equal(t, "done", last.name, "a provider failure is a hand-off, not an error: %v", last.data)
	if last.name != "done" {
		return nil, false
	}
	assert.Equal(t, last.data["answer"], deltas(events),
		"what the customer read is the hand-off; nothing of the broken answer is left standing")
	if midway {
		assert.True(t, mfSawPartial(events), "part of the answer reached the customer, then a reset replaced it: %v", events)
	}
	return last.data, true
}

// mfSawPartial reports whether a delta of the model's answer was released
// and a later delta reset it.
func mfSawPartial(events []sseEvent) bool {
	partial := false
	for _, ev := range events {
		if ev.name != "delta" {
			continue
		}
		if ev.data["reset"] == true && partial {
			return true
		}
		partial = partial || strings.HasPrefix(ev.data["text"].(string), "Refunds")
	}
	return false
}

// mfCheckHandOff checks a reply hands the customer over, saying why.
func mfCheckHandOff(t *testing.T, reply map[string]any) {
	t.Helper()
	assert.Equal(t, "transfer", reply["responseType"])
	assert.Equal(t, true, reply["shouldTransfer"])
	assert.Equal(t, "provider_unavailable", reply["transferReason"])
	assert.NotEmpty(t, reply["answer"], "the customer is told a person will take over")
}

// mfPost sends the covered question, accepting accept, and reads the whole
// answer within mfClientTimeout.
func mfPost(c *chat, accept string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), mfClientTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"message": covered})
	hr, err := http.NewRequestWithContext(ctx, "POST", c.e.srv.URL+c.path("/messages"), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", accept)
	hr.Header.Set("X-API-Key", c.e.root)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(res.Body)
	return res, buf.Bytes(), err
}
