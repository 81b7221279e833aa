package telemetry

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/cs-assistant/assistant/domain"
)

// queueReadTimeout bounds the database read of a scrape.
const queueReadTimeout = 2 * time.Second

// QueueStats is the index job queue at one moment, across all tenants.
type QueueStats struct {
	Queued       int64
	Running      int64
	OldestQueued time.Duration
}

// WatchJobQueue adds gauges of the index job queue, read through read at
// each scrape. The queue is shared through the database, so every replica
// reports the same figures: aggregate them with max, not sum.
func (m *Metrics) WatchJobQueue(read func(ctx context.Context) (QueueStats, error)) {
	m.reg.MustRegister(&queueCollector{
		read: read,
		queued: prometheus.NewDesc(namespace+"_index_jobs_queued",
			"Index jobs waiting for a worker (retries included), all replicas and tenants.", nil, nil),
		running: prometheus.NewDesc(namespace+"_index_jobs_running",
			"Index jobs a worker holds, all replicas and tenants.", nil, nil),
		oldest: prometheus.NewDesc(namespace+"_index_job_oldest_queued_age_seconds",
			"How long the oldest waiting index job has been queued (0 when none waits).", nil, nil),
	})
}

// queueCollector reads the queue when scraped.
type queueCollector struct {
	read                    func(ctx context.Context) (QueueStats, error)
	queued, running, oldest *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- q.queued
	ch <- q.running
	ch <- q.oldest
}

// Collect implements prometheus.Collector; a failed read reports the
// error in place of the gauges, and the rest of the scrape goes on.
func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), queueReadTimeout)
	defer cancel()
	st, err := q.read(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(q.queued, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(q.queued, prometheus.GaugeValue, float64(st.Queued))
	ch <- prometheus.MustNewConstMetric(q.running, prometheus.GaugeValue, float64(st.Running))
	ch <- prometheus.MustNewConstMetric(q.oldest, prometheus.GaugeValue, st.OldestQueued.Seconds())
}

// Jobs observes the index workers (ingest.JobObserver): a span per job
// attempt and the count of outcomes.
type Jobs struct {
	m      *Metrics
	tracer trace.Tracer
}

// NewJobs returns the workers' observer.
func NewJobs(m *Metrics, t *Tracing) *Jobs {
	return &Jobs{m: m, tracer: t.Tracer()}
}

// JobStarted implements ingest.JobObserver. The attempt's span starts a
// trace of its own; it names the request that queued the job, which the
// log lines of both carry.
func (j *Jobs) JobStarted(ctx context.Context, job domain.IndexJob) (context.Context, func(outcome string)) {
	attrs := []attribute.KeyValue{
		attribute.String("assistant.job_id", job.ID), attribute.String("assistant.tenant", string(job.TenantID)),
		attribute.String("assistant.document_id", job.DocumentID), attribute.Int("assistant.attempt", int(job.Attempts)),
	}
	if job.RequestID != "" {
		attrs = append(attrs, attribute.String("assistant.request_id", job.RequestID))
	}
	ctx, span := j.tracer.Start(ctx, "index job", trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attrs...))
	return ctx, func(outcome string) {
		j.m.jobOutcomes.WithLabelValues(outcome).Inc()
		span.SetAttributes(attribute.String("assistant.outcome", outcome))
		// The attempt failed ("failed", or "retry": queued again); an
		// abandoned one was cut off, not wrong.
		if outcome == "failed" || outcome == "retry" {
			span.SetStatus(codes.Error, outcome)
		}
		span.End()
	}
}
