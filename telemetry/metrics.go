package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes every metric of the service.
const namespace = "assistant"

// Metrics are the service's Prometheus metrics, registered on the
// registry given to NewMetrics. Its methods are safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	httpDBTrips  *prometheus.HistogramVec
	streamsOpen  *prometheus.GaugeVec

	stageDuration *prometheus.HistogramVec

	modelCalls    *prometheus.CounterVec
	modelErrors   *prometheus.CounterVec
	modelRetries  *prometheus.CounterVec
	modelTokens   *prometheus.CounterVec
	modelDuration *prometheus.HistogramVec

	embedCalls    *prometheus.CounterVec
	embedErrors   *prometheus.CounterVec
	embedTexts    *prometheus.CounterVec
	embedDuration *prometheus.HistogramVec

	jobOutcomes *prometheus.CounterVec

	cacheLookups *prometheus.CounterVec
}

// NewMetrics registers the service's metrics, and the Go runtime's and
// the process's, on reg.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	// Latency buckets, in seconds. Requests and stages run from well under
	// a millisecond (a cached rule) to minutes (a long stream, a slow model).
	requestBuckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	stageBuckets := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	callBuckets := []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	m := &Metrics{
		reg: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by contract operation (or route outside the contract), method and status.",
		}, []string{"operation", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, a stream to its end, by operation.",
			Buckets: requestBuckets,
		}, []string{"operation"}),
		httpDBTrips: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_db_round_trips",
			Help:    "PostgreSQL round trips (queries, batches, COPYs; BEGIN and COMMIT count) made on behalf of an HTTP request, by operation.",
			Buckets: []float64{0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64},
		}, []string{"operation"}),
		streamsOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Name: "sse_streams_open",
			Help: "Server-sent event streams being answered, by operation.",
		}, []string{"operation"}),
		stageDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "dialogue_stage_duration_seconds",
			Help:    "Time a dialogue stage took, by stage (stages skipped by an earlier answer are not observed).",
			Buckets: stageBuckets,
		}, []string{"stage"}),
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "model_calls_total",
			Help: "Language model calls, by provider and mode (generate or stream).",
		}, []string{"provider", "mode"}),
		modelErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "model_errors_total",
			Help: "Language model calls that failed after their retries, by provider and error code.",
		}, []string{"provider", "code"}),
		modelRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "model_retries_total",
			Help: "Attempts after the first that language model calls took, by provider.",
		}, []string{"provider"}),
		modelTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "model_tokens_total",
			Help: "Tokens the language models reported, by provider and kind (prompt or completion).",
		}, []string{"provider", "kind"}),
		modelDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "model_call_duration_seconds",
			Help:    "Time a language model call took, retries included, by provider.",
			Buckets: callBuckets,
		}, []string{"provider"}),
		embedCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "embedding_calls_total",
			Help: "Embedding calls (each a batch of texts), by provider.",
		}, []string{"provider"}),
		embedErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "embedding_errors_total",
			Help: "Embedding calls that failed, by provider and error code.",
		}, []string{"provider", "code"}),
		embedTexts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "embedding_texts_total",
			Help: "Texts sent to be embedded, by provider.",
		}, []string{"provider"}),
		embedDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "embedding_call_duration_seconds",
			Help:    "Time an embedding call took, by provider.",
			Buckets: callBuckets,
		}, []string{"provider"}),
		jobOutcomes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "index_job_outcomes_total",
			Help: "Ends of index job attempts on this replica: succeeded, failed, retry (queued again) or abandoned (lease lost, shutdown).",
		}, []string{"outcome"}),
		cacheLookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "cache_lookups_total",
			Help: "Lookups of the per-tenant caches, by cache and result (hit or miss).",
		}, []string{"cache", "result"}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.httpDBTrips, m.streamsOpen, m.stageDuration,
		m.modelCalls, m.modelErrors, m.modelRetries, m.modelTokens, m.modelDuration,
		m.embedCalls, m.embedErrors, m.embedTexts, m.embedDuration,
		m.jobOutcomes, m.cacheLookups,
	)
	return m
}

// Handler serves the registry in the Prometheus text format; when a
// collector fails (the job queue's database read), the rest is still
// served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}
