package dashboard

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Stats are the dashboard's figures of one range.
type Stats struct {
	// From and To are the range, widened to whole UTC hours.
	From, To    time.Time
	Granularity domain.DashboardGranularity
	// RolledUpTo: hours before it were read from the roll-ups.
	RolledUpTo       *time.Time
	Sessions         int64
	CustomerMessages int64
	// Replies counts the replies by response type; RepliesTotal all of
	// them.
	Replies      map[string]int64
	RepliesTotal int64
	Handoffs     int64
	// HandoffRate is Handoffs / RepliesTotal (0 without replies).
	HandoffRate float64
	// HandoffReasons are the most frequent transfer reasons, most first.
	HandoffReasons []Count
	Confidence     Distribution
	// Latency is in milliseconds.
	Latency        Distribution
	Tokens         []ModelTokens
	TopIntentRules []RuleHits
	TopUnanswered  []Count
	Guardrails     Guardrails
	// Documents and IndexJobs count by status and state, now.
	Documents map[string]int64
	IndexJobs map[string]int64
	// Series has one bucket per hour or day of the range, oldest first.
	Series []Bucket
}

// Count is how many times Key occurred.
type Count struct {
	Key string
	N   int64
}

// Distribution summarises values: their count, mean and 50th and 95th
// percentiles (nil without values).
type Distribution struct {
	N              int64
	Mean, P50, P95 *float64
}

// ModelTokens are a model's replies and the tokens they took in and gave out.
type ModelTokens struct {
	Model                        string
	Replies, TokensIn, TokensOut int64
}

// RuleHits are an intent rule's hits; Name is nil for a rule deleted since.
type RuleHits struct {
	RuleID string
	Name   *string
	Hits   int64
}

// Guardrails count guardrail hits: all, those that blocked or handed over,
// and by stage.
type Guardrails struct {
	Hits, Blocks, Transfers, InputHits, OutputHits int64
}

// Bucket is one hour or day of the series; the latency figures are nil
// without replies.
type Bucket struct {
	Start                               time.Time
	CustomerMessages, Replies, Handoffs int64
	LatencyMeanMs, LatencyP95Ms         *float64
}

// totals folds facts per metric and key; the confidence and latency
// metrics, whose keys are buckets, as histograms.
type totals struct {
	counts     map[string]map[string]*sum
	confidence histogram
	latency    histogram
}

func newTotals() *totals {
	return &totals{counts: map[string]map[string]*sum{}, confidence: histogram{}, latency: histogram{}}
}

func (t *totals) add(f domain.DashboardFact) {
	switch f.Metric {
	case domain.MetricConfidence:
		t.confidence.add(f.Key, f.N, f.Total)
	case domain.MetricLatency:
		t.latency.add(f.Key, f.N, f.Total)
	default:
		m := t.counts[f.Metric]
		if m == nil {
			m = map[string]*sum{}
			t.counts[f.Metric] = m
		}
		if m[f.Key] == nil {
			m[f.Key] = &sum{}
		}
		m[f.Key].add(f.N, f.Total)
	}
}

// n is a metric's count over every key.
func (t *totals) n(metric string) int64 {
	var n int64
	for _, s := range t.counts[metric] {
		n += s.n
	}
	return n
}

// top is a metric's keys by count, most first (equal counts by key), at
// most limit of them.
func (t *totals) top(metric string, limit int) []Count {
	out := make([]Count, 0, len(t.counts[metric]))
	for k, s := range t.counts[metric] {
		if s.n > 0 {
			out = append(out, Count{Key: k, N: s.n})
		}
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Key, b.Key))
	})
	return out[:min(len(out), limit)]
}

// seriesBucket folds the facts of one bucket.
type seriesBucket struct {
	customerMessages, replies, handoffs int64
	latency                             histogram
}

// fold turns a snapshot into the figures of q: the live facts are added to
// the rolled-up totals, and to the series in the bucket of their hour.
func fold(q domain.DashboardQuery, snap domain.DashboardSnapshot) Stats {
	all := newTotals()
	for _, f := range snap.RolledTotals {
		all.add(f)
	}
	for _, f := range snap.Live {
		all.add(f)
	}
	st := Stats{
		From: q.From, To: q.To, Granularity: q.Granularity, RolledUpTo: snap.RolledUpTo,
		Sessions: all.n(domain.MetricSessions), CustomerMessages: all.n(domain.MetricCustomerMessages),
		Replies: map[string]int64{}, RepliesTotal: all.n(domain.MetricReplies), Handoffs: all.n(domain.MetricHandoffs),
		HandoffReasons: all.top(domain.MetricHandoffs, topReasons),
		Confidence:     distribution(all.confidence),
		Latency:        distribution(all.latency),
		TopUnanswered:  all.top(domain.MetricUnanswered, topUnanswered),
		Documents:      snap.Documents, IndexJobs: snap.IndexJobs,
	}
	for k, s := range all.counts[domain.MetricReplies] {
		st.Replies[k] = s.n
	}
	if st.RepliesTotal > 0 {
		st.HandoffRate = *round4(float64(st.Handoffs) / float64(st.RepliesTotal))
	}
	for _, c := range all.top(domain.MetricIntentHits, topRules) {
		st.TopIntentRules = append(st.TopIntentRules, RuleHits{RuleID: c.Key, Hits: c.N})
	}
	st.Tokens = modelTokens(all)
	st.Guardrails = guardrails(all.counts[domain.MetricGuard])
	st.Series = series(q, snap)
	return st
}

func distribution(h histogram) Distribution {
	return Distribution{N: h.count(), Mean: h.mean(), P50: h.percentile(0.50), P95: h.percentile(0.95)}
}

// modelTokens lists the models by replies, most first.
func modelTokens(all *totals) []ModelTokens {
	out := []ModelTokens{}
	out2 := all.counts[domain.MetricTokensOut]
	for model, in := range all.counts[domain.MetricTokensIn] {
		m := ModelTokens{Model: model, Replies: in.n, TokensIn: int64(in.total)}
		if o := out2[model]; o != nil {
			m.TokensOut = int64(o.total)
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b ModelTokens) int {
		return cmp.Or(cmp.Compare(b.Replies, a.Replies), strings.Compare(a.Model, b.Model))
	})
	return out[:min(len(out), topModels)]
}

// guardrails adds up the hits keyed "stage:action".
func guardrails(hits map[string]*sum) Guardrails {
	var g Guardrails
	for key, s := range hits {
		stage, action, _ := strings.Cut(key, ":")
		g.Hits += s.n
		switch action {
		case "block":
			g.Blocks += s.n
		case "transfer":
			g.Transfers += s.n
		}
		switch domain.GuardStage(stage) {
		case domain.GuardInput:
			g.InputHits += s.n
		case domain.GuardOutput:
			g.OutputHits += s.n
		}
	}
	return g
}

// series lays out every bucket of the range, empty ones included, with
// the rolled-up buckets and the live facts in theirs.
func series(q domain.DashboardQuery, snap domain.DashboardSnapshot) []Bucket {
	buckets := map[time.Time]*seriesBucket{}
	add := func(at time.Time, f domain.DashboardFact) {
		b := buckets[at]
		if b == nil {
			b = &seriesBucket{latency: histogram{}}
			buckets[at] = b
		}
		switch f.Metric {
		case domain.MetricCustomerMessages:
			b.customerMessages += f.N
		case domain.MetricReplies:
			b.replies += f.N
		case domain.MetricHandoffs:
			b.handoffs += f.N
		case domain.MetricLatency:
			b.latency.add(f.Key, f.N, f.Total)
		}
	}
	for _, f := range snap.RolledSeries {
		add(f.Hour, f)
	}
	for _, f := range snap.Live {
		add(bucketOf(f.Hour, q.Granularity), f)
	}
	out := []Bucket{}
	for at := bucketOf(q.From, q.Granularity); at.Before(q.To); at = next(at, q.Granularity) {
		bk := Bucket{Start: at}
		if b := buckets[at]; b != nil {
			bk.CustomerMessages, bk.Replies, bk.Handoffs = b.customerMessages, b.replies, b.handoffs
			bk.LatencyMeanMs, bk.LatencyP95Ms = b.latency.mean(), b.latency.percentile(0.95)
		}
		out = append(out, bk)
	}
	return out
}
