package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cs-assistant/assistant/telemetry"
)

// tracingShutdownTimeout bounds the last export of buffered spans.
const tracingShutdownTimeout = 5 * time.Second

// buildTelemetry makes the service's one metrics registry and its tracer
// provider, and wraps the logger so that every line names the request and
// trace of its context. It runs first: the database pool traces its
// queries with it.
func (a *app) buildTelemetry(ctx context.Context) error {
	a.metrics = telemetry.NewMetrics(prometheus.NewRegistry())
	var err error
	if a.tracing, err = telemetry.NewTracing(ctx, telemetry.TracingConfig{
		Endpoint: a.cfg.OTelEndpoint, ServiceName: a.cfg.OTelServiceName,
	}); err != nil {
		return err
	}
	a.buildOutbound()
	a.log = slog.New(telemetry.NewLogHandler(a.log.Handler()))
	return nil
}

// traceQueries gives the pool the query tracer: round trips are counted
// per request, and spans made when they are exported.
func (a *app) traceQueries(cfg *pgxpool.Config) {
	cfg.ConnConfig.Tracer = a.tracing.QueryTracer()
}

// observeTelemetry connects what was built to the metrics: the caches'
// hit counters and the job queue's gauges. It runs before the service
// serves or its background loops start.
func (a *app) observeTelemetry() {
	if a.metrics == nil {
		return
	}
	a.keys.CountLookups(a.metrics.Lookups(telemetry.CacheAPIKeys))
	a.tenants.CountLookups(a.metrics.Lookups(telemetry.CacheTenants))
	a.settings.CountLookups(a.metrics.Lookups(telemetry.CacheSettings))
	a.strategies.CountLookups(a.metrics.Lookups(telemetry.CacheStrategies))
	a.chunks.CountLookups(a.metrics.Lookups(telemetry.CacheChunks))
	a.intentRules.CountLookups(a.metrics.Lookups(telemetry.CacheIntentRules))
	a.prompts.CountLookups(a.metrics.Lookups(telemetry.CachePrompts))
	a.slotRules.CountLookups(a.metrics.Lookups(telemetry.CacheSlotDefinitions))
	a.fields.CountLookups(a.metrics.Lookups(telemetry.CacheMetadataFields))
	a.models.CountLookups(a.metrics.Lookups(telemetry.CacheModels))
	a.embedders.CountLookups(a.metrics.Lookups(telemetry.CacheEmbedders))
	a.indexModels.CountLookups(a.metrics.Lookups(telemetry.CacheModels))
	a.indexEmbedders.CountLookups(a.metrics.Lookups(telemetry.CacheEmbedders))
	if a.termStats != nil {
		a.termStats.CountLookups(a.metrics.Lookups(telemetry.CacheTermStats))
	}
	a.metrics.WatchJobQueue(func(ctx context.Context) (telemetry.QueueStats, error) {
		st, err := a.store.JobQueueStats(ctx)
		return telemetry.QueueStats{Queued: st.Queued, Running: st.Running, OldestQueued: st.OldestQueued}, err
	})
	if a.index != nil {
		a.metrics.WatchSearchIndex(func() telemetry.SearchIndexStats {
			st := a.index.Stats()
			return telemetry.SearchIndexStats{Tenants: st.Tenants, Bytes: st.Bytes, MappedBytes: st.MappedBytes,
				Loads: st.Loads, Evictions: st.Evictions}
		})
	}
}

// closeTelemetry exports the spans still buffered.
func (a *app) closeTelemetry() {
	if a.tracing == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
	defer cancel()
	if err := a.tracing.Shutdown(ctx); err != nil {
		a.log.Warn("exporting the last spans failed", "err", err)
	}
}
