package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrips is the number of postChatMessage requests observed and the
// PostgreSQL round trips they made, from one scrape.
func (m metrics) roundTrips(operation string) (requests, trips float64) {
	f, ok := m["assistant_http_db_round_trips"]
	if !ok {
		return 0, 0
	}
	for _, s := range f.GetMetric() {
		if hasLabels(s, map[string]string{"operation": operation}) {
			return float64(s.Histogram.GetSampleCount()), s.Histogram.GetSampleSum()
		}
	}
	return 0, 0
}

// roundTripsPerMessage sends questions through send and returns the
// PostgreSQL round trips each postChatMessage request made, on average.
func (e *env) roundTripsPerMessage(t *testing.T, questions []string, send func(q string)) float64 {
	t.Helper()
	n0, trips0 := e.scrape(t).roundTrips("postChatMessage")
	for _, q := range questions {
		send(q)
	}
	n1, trips1 := e.scrape(t).roundTrips("postChatMessage")
	require.Equal(t, float64(len(questions)), n1-n0)
	return (trips1 - trips0) / (n1 - n0)
}

// A customer's message, on untouched settings and warm caches, costs two
// PostgreSQL round trips: one statement stores the message and reads the
// session with its memory window, one batch writes the reply, the
// session's new state and every monitoring record. Evidence no message
// quoted before costs one more (its text is read, then cached).
func TestMessageMakesTwoDatabaseRoundTrips(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(newcomerFAQ)})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	questions := []string{
		"How long do I have to return an item?",  // answered
		"When will my refund be paid?",           // answered
		"Which countries do you deliver to?",     // answered
		"Do you accept bitcoin?",                 // handed off
		"签收后多少天内可以退货？",                           // answered, Chinese
		"Can I cancel my order?",                 // short: expanded with the one before
		"How long is the warranty on LED lamps?", // answered
	}
	// The first message loads the key, tenant, settings, strategy, rules,
	// guardrails, templates and model caches.
	first := e.newChat("acme", nil)
	first.send(t, "Hello, how long do refunds take?")
	perMessage := func(send func(q string)) float64 { return e.roundTripsPerMessage(t, questions, send) }
	c := e.newChat("acme", nil)
	cold := perMessage(func(q string) { c.send(t, q) })
	t.Logf("round trips per message, evidence not quoted before: %.2f", cold)
	assert.GreaterOrEqual(t, cold, 2.0)
	assert.LessOrEqual(t, cold, 3.0, "at most one more, for the evidence's text")

	again := e.newChat("acme", nil)
	warm := perMessage(func(q string) { again.send(t, q) })
	assert.Equal(t, 2.0, warm, "round trips per message, in a new session")

	streamed := e.newChat("acme", nil)
	assert.Equal(t, 2.0, perMessage(func(q string) {
		events := streamed.stream(t, q, nil)
		require.Equal(t, "done", events[len(events)-1].name)
	}), "round trips per streamed message")
}

// A tenant that uses slot definitions, filter fields and a decomposition
// template pays no more on warm caches: its definitions and fields are
// cached too, so a message whose session's slots become the retrieval
// filter, and which the template decomposes first, still costs two round
// trips.
func TestMessageWithSlotsAndFiltersMakesTwoDatabaseRoundTrips(t *testing.T) {
	e, tpl := decompositionEnv(t)
	e.publishDecomposition(t, tpl, 1)
	slots := map[string]string{"device": "router", "order_no": "A10086", "quantity": "2"}
	questions := []string{
		"How long do refunds take?",
		"When will my order ship?",
		"How long is the warranty?",
		"Do you accept bitcoin?",
		"退款多久到账？",
	}
	// The first session loads every cache and quotes the evidence once.
	first := e.newChat("acme", slots)
	for _, q := range questions {
		first.send(t, q)
	}

	c := e.newChat("acme", slots)
	assert.Equal(t, 2.0, e.roundTripsPerMessage(t, questions, func(q string) { c.send(t, q) }),
		"round trips per message, in a new session with slots")
	d := e.retrievalDetail(t, c.session)
	assert.Equal(t, map[string]any{"product": "router"}, d["filter"], "the device slot, linked to the product field, filtered retrieval")
	assert.Contains(t, d, "decomposition", "the published template decomposed the message")

	streamed := e.newChat("acme", slots)
	assert.Equal(t, 2.0, e.roundTripsPerMessage(t, questions, func(q string) {
		events := streamed.stream(t, q, nil)
		require.Equal(t, "done", events[len(events)-1].name)
	}), "round trips per streamed message, in a session with slots")
}
