package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/dashboard"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/outbound"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
	"github.com/cs-assistant/assistant/pipelines/dialogue/metadata"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
	"github.com/cs-assistant/assistant/pipelines/ingest"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/llm"
	"github.com/cs-assistant/assistant/retention"
	"github.com/cs-assistant/assistant/server"
	"github.com/cs-assistant/assistant/sharing"
	"github.com/cs-assistant/assistant/store/chunkcache"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/indexfeed"
	"github.com/cs-assistant/assistant/store/pg"
	"github.com/cs-assistant/assistant/store/vector/memindex"
	"github.com/cs-assistant/assistant/store/vector/qdrant"
	"github.com/cs-assistant/assistant/store/vectorlog"
	"github.com/cs-assistant/assistant/telemetry"
)

// Caching and batching intervals.
const (
	tenantCacheTTL   = 10 * time.Second
	usageFlushEvery  = time.Minute
	embedderCacheTTL = time.Minute
)

// app is the whole service, wired: the one place that knows every concrete
// type. The end-to-end tests build it the same way.
type app struct {
	cfg      config.Config
	log      *slog.Logger
	pool     *pgxpool.Pool
	migrator *pg.Migrator
	store    *pg.Store
	vectors  domain.VectorStore
	// index is the embedded search index (vectors and words, tenants
	// loaded on use within a memory bound); nil with Qdrant.
	index  *hybrid.Index
	qdrant *qdrant.Store
	// termStats is retrieval's lexical side with Qdrant: its term counts
	// kept per tenant, following index changes; nil without Qdrant.
	termStats *qdrant.TermStatsCache
	pdf       *parse.PDFEngine
	vlog      *vectorlog.Log
	embedders *embed.Registry
	models    *llm.Registry
	// indexEmbedders and indexModels are the index workers': the tenants'
	// configurations with each call held within the operator's bounds
	// (ASSISTANT_INDEX_PROVIDER_TIMEOUT and _RETRIES), so that a tenant
	// whose provider hangs holds a worker for a bounded time.
	indexEmbedders *embed.Registry
	indexModels    *llm.Registry
	// buildEmbedder and buildChatModel make what a tenant's configuration
	// names, on the outbound client it may use, counted under its provider (the registries',
	// the configuration services' and the RAG lab's builder).
	buildEmbedder  func(domain.EmbeddingConfig) (domain.Embedder, error)
	buildChatModel func(domain.LLMConfig) (domain.ChatModel, error)
	// meaning is the sentence encoder the offline answerer re-ranks with
	// (nil when it is off or its weights are absent; see loadMeaning).
	meaning  domain.Meaning
	worker   *ingest.Worker
	usage    *access.UsageRecorder
	settings *access.Settings
	// strategies is the retrieval strategy service, whose cache of each
	// tenant's switched-to strategy every retrieval reads.
	strategies *retrieve.Strategies
	// chunks caches the chunks answers quote, following index changes.
	chunks *chunkcache.Cache
	// indexChanges shares one listener of every replica's index changes
	// among the caches that follow them (chunks, termStats).
	indexChanges *indexfeed.Feed
	keys         *access.Keys
	tenants      *access.Tenants
	// quotas reports tenants' quotas, counts their keys' event streams
	// and gives the embedded index each tenant's share; the store holds
	// the counted quotas under the same policy.
	quotas *access.Quotas
	// invalidations routes every change of a tenant's state to the caches
	// of that kind: each cache registers with it when built, the services
	// drop through it after their writes, and so does the listener of
	// every replica's change notifications (startBackground).
	invalidations *tenantcache.Registry
	server        *server.Server
	// intentRules is the per-tenant cache of compiled intent rules that the
	// message pipeline matches with (Matcher(ctx, tenant)); writes drop it
	// here at once and on other replicas through a change notification.
	intentRules *intent.Cache
	// prompts serves the published prompt of each scene to the message
	// pipeline, cached per tenant and dropped on every publish, rollback
	// or delete.
	prompts *prompt.Cache
	// guards hands out each tenant's compiled guard.Guard (guards.For), for
	// the message pipeline's input and output checks; writes drop a
	// tenant's entry through invalidations.
	guards *guard.Guards
	// slotRules and fields are each tenant's slot definitions and
	// metadata fields, cached for the message pipeline (session slots, the
	// retrieval filter, decomposition); writes drop them through
	// invalidations.
	slotRules *slots.Cache
	fields    *metadata.Cache
	// dialogue runs customer messages, fires flow timeouts and purges
	// old reply events.
	dialogue *turn.Runner
	// retention purges expired monitoring records and messages, per the
	// tenants' settings, in the background.
	retention *retention.Purger
	// dashboard computes the dashboard and keeps its hourly roll-ups
	// (Run, in the background).
	dashboard *dashboard.Service
	// metrics, on the service's one registry, and tracing are made first
	// (buildTelemetry); nil in commands that serve nothing.
	metrics *telemetry.Metrics
	tracing *telemetry.Tracing
	// outbound holds the clients of every call to an address a tenant
	// chose (model and embedding providers): guarded, or trusted for a
	// configuration a platform key set.
	outbound *outbound.Clients

	// stopBackground ends the background loops (key-usage flushing, cache
	// invalidation); background waits for them.
	stopBackground context.CancelFunc
	background     sync.WaitGroup
}

// newApp connects to PostgreSQL, applies the migrations, makes sure the
// default key exists, and builds the HTTP server.
func newApp(ctx context.Context, cfg config.Config, log *slog.Logger) (*app, error) {
	a := &app{cfg: cfg, log: log}
	if err := a.buildTelemetry(ctx); err != nil {
		return nil, err
	}
	pool, err := pg.Open(ctx, cfg.DatabaseURL, a.traceQueries)
	if err != nil {
		a.closeTelemetry()
		return nil, err
	}
	a.pool = pool
	if err := a.build(ctx); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// build makes every service over the pool and the HTTP server, and starts
// the background loops.
func (a *app) build(ctx context.Context) error {
	err := a.buildCore(ctx)
	if err != nil {
		return err
	}
	if err := a.keys.EnsureDefaultAtStart(ctx, a.cfg.DefaultAPIKey, a.cfg.DataDir, a.log); err != nil {
		return err
	}
	// Provider keys stored in clear by earlier versions, or sealed with a
	// previous key, are sealed with the current one.
	if n, err := a.store.ResealProviderKeys(ctx); err != nil {
		return fmt.Errorf("seal the stored provider API keys: %w", err)
	} else if n > 0 {
		a.log.Info("sealed stored provider API keys with the current secret key", "keys", n)
	}
	if err := a.buildIngestion(ctx); err != nil {
		return err
	}
	a.strategies = retrieve.NewStrategies(a.store, a.settings, a.embedders, tenantcache.DefaultTTL, a.invalidations)
	a.intentRules = intent.NewCache(a.store.AllIntentRules, tenantcache.DefaultTTL, a.invalidations)
	a.prompts = prompt.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations)
	a.guards = guard.NewGuards(a.store.LoadGuardConfig, tenantcache.DefaultTTL, a.invalidations)
	a.slotRules = slots.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations)
	a.fields = metadata.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations)
	a.chunks = chunkcache.New(a.store, a.cfg.ChunkCacheBytes)
	a.indexChanges = indexfeed.New(a.store)
	retriever := retrieve.NewRetriever(a.strategies, a.embedders, a.vectors, a.words(), a.chunks, a.fields, a.store, analysis.NewSynonyms())
	prompts := prompt.NewService(a.store, a.settings, a.tenants, a.invalidations)
	answerer := answer.New(retriever, a.models, a.buildChatModel,
		answer.Prompts{Published: a.prompts, Builtins: prompts.Builtins, Record: a.store.RecordPromptRenders})
	// The decomposer runs each tenant's published decomposition (cached,
	// dropped on publish, rollback and delete) on the kb_processing model.
	decomposer := decompose.New(decompose.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations), a.slotRules, a.fields, a.models, a.log)
	flows := flow.NewService(a.store, a.store, a.invalidations).WithSlots(a.slotRules)
	a.dialogue = turn.New(turn.Deps{
		Log: a.log, Chat: a.store, Tenants: a.tenants, Settings: a.settings, Metadata: a.fields,
		Rules: a.intentRules, Flows: flow.NewCache(a.store, tenantcache.DefaultTTL, a.invalidations), Prompts: a.prompts, Guards: a.guards,
		Answerer: answerer, Models: a.models, Telemetry: telemetry.NewDialogue(a.metrics, a.tracing),
		Slots: a.slotRules, Decomposer: decomposer, Broadcast: true,
	})
	a.retention = retention.New(a.store, a.log)
	a.dashboard = dashboard.New(a.store, a.log, nil)
	a.server, err = server.New(ctx, server.Deps{
		Log: a.log, Keys: a.keys, Tenants: a.tenants, Quotas: a.quotas, Settings: a.settings, KnowledgeBases: a.store,
		Documents: a.store, Jobs: a.store,
		Metadata:        metadata.NewService(a.store, a.invalidations),
		Ingest:          ingest.NewService(a.store, a.store, a.store, a.vectors, a.worker.Wake).WithProposer(decomposer),
		Retriever:       retriever,
		Embedding:       embed.NewConfigs(a.store, a.buildEmbedder, a.embedders, a.invalidations).WithURLCheck(a.outbound.CheckBaseURL),
		Strategies:      a.strategies,
		Models:          llm.NewConfigs(a.store, a.buildChatModel, a.models, a.invalidations).WithURLCheck(a.outbound.CheckBaseURL),
		IntentRules:     intent.NewService(a.store, a.store, a.store, a.invalidations),
		ScriptFlows:     flows,
		PromptTemplates: prompts,
		Guardrails:      guard.NewService(a.store, a.guards, a.invalidations),
		Chat:            a.store, Dialogue: a.dialogue, Handoffs: a.store,
		Dashboard: a.dashboard, Conversations: a.store,
		Slots: slots.NewService(a.store, a.store, a.slotRules, a.invalidations), Decomposition: decompose.NewService(a.store, decomposer, a.invalidations),
		Answerer:     answerer,
		Ready:        func(ctx context.Context) error { return a.ready(ctx, a.store) },
		MaxBodyBytes: a.cfg.MaxBodyBytes, MaxUploadBytes: a.cfg.MaxUploadBytes, BodyReadTimeout: a.cfg.BodyReadTimeout,
		FrontendBaseURL: a.cfg.FrontendBaseURL, CORSOrigins: a.cfg.CORSOrigins,
		MetricsElsewhere: a.cfg.MetricsAddr != "", Telemetry: telemetry.NewHTTP(a.metrics, a.tracing),
		RateLimits: server.RateLimits{PerKey: a.cfg.RateLimitPerKey, PerTenant: a.cfg.RateLimitPerTenant,
			PerShare: a.cfg.ShareRateLimitPerShare, PerAddress: a.cfg.ShareRateLimitPerAddress},
		Idempotency: a.store,
		Shares:      sharing.New(a.store, a.store, a.store, a.cfg.FrontendBaseURL),
	})
	if err != nil {
		return err
	}
	a.observeTelemetry()
	a.startBackground(ctx)
	return nil
}

// buildCore applies the migrations and builds the store and the key and
// tenant services: what every command of the binary needs.
func (a *app) buildCore(ctx context.Context) error {
	var err error
	if a.migrator, err = pg.NewMigrator(a.pool); err != nil {
		return err
	}
	n, err := a.migrator.Up(ctx)
	if err != nil {
		return err
	}
	a.log.Info("database ready", "migrations_applied", n)

	keys, err := a.keyring()
	if err != nil {
		return err
	}
	policy := a.quotaPolicy()
	a.store = pg.New(a.pool, pg.SealSecretsWith(keys), pg.WithQuotas(policy))
	a.invalidations = tenantcache.NewRegistry()
	a.tenants = access.NewTenants(a.store, tenantCacheTTL, a.invalidations)
	a.quotas = access.NewQuotas(policy, a.store, a.tenants)
	a.settings = access.NewSettings(a.store, tenantcache.DefaultTTL, a.invalidations)
	a.usage = access.NewUsageRecorder(a.store, a.log, usageFlushEvery)
	a.keys = access.NewKeys(a.store, a.tenants, a.usage, access.DefaultKeyOptions())
	return nil
}

// quotaPolicy is the platform's quotas, with the embedded index's estimate
// of a tenant's memory; with Qdrant there is no index memory to bound.
func (a *app) quotaPolicy() domain.QuotaPolicy {
	p := domain.QuotaPolicy{Defaults: a.cfg.Quotas}
	if a.cfg.QdrantURL == "" {
		p.IndexBytes = func(chunks, textBytes int64) int64 {
			return hybrid.EstimateBytes(domain.EmbeddingDims, chunks, textBytes)
		}
	}
	return p
}

// buildIngestion picks the search index and builds the index workers on
// the offline defaults: the lexical embedder and the embedded search index.
func (a *app) buildIngestion(ctx context.Context) error {
	if err := a.buildVectors(ctx); err != nil {
		return err
	}
	tok, err := chunk.NewTokenizer()
	if err != nil {
		return err
	}
	if a.outbound == nil {
		a.buildOutbound()
	}
	a.loadMeaning()
	a.buildEmbedder = a.metrics.Embedders(a.embedderBuilder())
	a.buildChatModel = a.metrics.ChatModels(a.chatModelBuilder())
	a.embedders = embed.NewRegistry(a.store, a.buildEmbedder, embedderCacheTTL, a.invalidations)
	a.models = llm.NewRegistry(a.store, a.buildChatModel, embedderCacheTTL, a.invalidations)
	bounds := domain.CallBounds{Timeout: a.cfg.IndexProviderTimeout, Retries: a.cfg.IndexProviderRetries}
	a.indexEmbedders = embed.NewRegistry(a.store, embed.Bounded(a.buildEmbedder, bounds), embedderCacheTTL, a.invalidations)
	a.indexModels = llm.NewRegistry(a.store, llm.Bounded(a.buildChatModel, bounds), embedderCacheTTL, a.invalidations)
	// One PDF engine for the process: pdfium's WebAssembly is compiled once
	// per machine (cached in the user's cache dir, 3.5 s) and instantiated
	// per file (2 ms), instead of compiled per file.
	a.pdf, err = parse.NewPDFEngine(parse.PDFEngineConfig{
		MaxConcurrent: a.cfg.IndexWorkers, CacheDir: parse.DefaultPDFCacheDir(),
	})
	if err != nil {
		return fmt.Errorf("start the PDF engine: %w", err)
	}
	opts := ingest.DefaultWorkerOptions()
	opts.Concurrency, opts.Lease, opts.PerTenant = a.cfg.IndexWorkers, a.cfg.IndexLease, a.cfg.IndexJobsPerTenant
	opts.Parse.PDF = a.pdf
	opts.Parse.OCRLanguages = a.cfg.OCRLanguages
	a.vlog = vectorlog.New(a.store, a.cfg.DataDir)
	opts.VectorLog = a.vlog
	if a.metrics != nil {
		opts.Observer = telemetry.NewJobs(a.metrics, a.tracing)
	}
	opts.Questions = ingest.NewQuestioner(a.store, a.indexModels)
	a.worker = ingest.NewWorker(a.store, a.vectors, a.indexEmbedders, a.store, tok, a.log, opts)
	return nil
}

// buildVectors picks the vector store: Qdrant when QDRANT_URL is set,
// otherwise the embedded index, whose tenants load from PostgreSQL on use.
func (a *app) buildVectors(ctx context.Context) error {
	if a.cfg.QdrantURL != "" {
		q, err := qdrant.New(ctx, a.cfg.Qdrant())
		if err != nil {
			return fmt.Errorf("QDRANT_URL: %w", err)
		}
		a.qdrant, a.termStats = q, qdrant.NewTermStatsCache(q, tenantcache.DefaultTTL, qdrant.DefaultTermCounts)
		// Qdrant's writes are announced once done, after the database's
		// own announcements: the term counts kept follow both.
		a.vectors = qdrant.NewAnnounced(qdrant.NewAutoIndexed(q), a.store)
		a.log.Info("vectors kept in Qdrant", "collection", q.Collection())
		return nil
	}
	a.index = hybrid.New(a.store, hybrid.Options{Dims: domain.EmbeddingDims, MemoryBytes: a.cfg.IndexMemoryBytes, Log: a.log,
		Vectors: memindex.Options{VectorDir: a.cfg.IndexDir}, Shares: a.quotas})
	a.vectors = a.index
	a.log.Info("search index embedded: tenants load on first use", "memory_bytes", a.cfg.IndexMemoryBytes)
	return nil
}

// words is what retrieval searches words with: with Qdrant, the sparse
// vectors of the same collection, so that no replica keeps an index of
// its own (nothing is loaded; only the term counts are kept, dropped on
// other replicas' writes); otherwise the embedded index's BM25 side.
func (a *app) words() domain.LexicalSearcher {
	if a.termStats != nil {
		return a.termStats
	}
	return a.index
}

// startBackground runs the loops that live as long as the app: flushing
// key use, and dropping cache entries that any replica changed.
func (a *app) startBackground(ctx context.Context) {
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stopBackground = stop
	a.background.Go(func() { a.usage.Run(bg) })
	a.background.Go(func() { a.worker.Run(bg) })
	a.background.Go(func() { a.dialogue.RunSweeper(bg) })
	a.background.Go(func() { a.dashboard.Run(bg) })
	a.background.Go(func() { a.retention.Run(bg) })
	a.background.Go(func() { a.server.RunIdempotencyPurge(bg) })
	a.background.Go(func() { a.store.ListenJobs(bg, a.worker.Wake) })
	a.background.Go(func() { a.followSessionMessages(bg) })
	if a.index != nil {
		a.background.Go(func() { a.index.Follow(bg, a.store) })
	}
	a.background.Go(func() { a.indexChanges.Run(bg) })
	a.background.Go(func() { a.chunks.Follow(bg, a.indexChanges) })
	if a.termStats != nil {
		a.background.Go(func() { a.termStats.Follow(bg, a.indexChanges) })
	}
	a.background.Go(func() {
		a.store.ListenInvalidations(bg, func(inv domain.Invalidation) {
			if inv.KeyHash != nil {
				a.keys.Drop(inv.KeyHash)
			}
			if inv.Tenant != "" {
				a.invalidations.Drop(inv.Kind, inv.Tenant)
			}
		})
	})
}

// ready reports whether the database answers and every migration is
// applied, and, when vectors are kept in Qdrant, whether Qdrant answers.
func (a *app) ready(ctx context.Context, store *pg.Store) error {
	if err := store.Ping(ctx); err != nil {
		return err
	}
	pending, err := a.migrator.Pending(ctx)
	if err != nil {
		return err
	}
	if pending {
		return errors.New("database migrations are pending")
	}
	if a.qdrant != nil {
		if err := a.qdrant.Health(ctx); err != nil {
			return err
		}
	}
	return nil
}

// serve answers requests on ln until ctx ends, then stops accepting and
// lets in-flight requests finish (up to the shutdown timeout).
func (a *app) serve(ctx context.Context, ln net.Listener) error {
	srv := a.server.HTTPServer(slog.NewLogLogger(a.log.Handler(), slog.LevelWarn))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(server.ProblemListener(ln)) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down: finishing in-flight requests", "timeout", a.cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	// Session watchers end now; generations still running near the deadline
	// are stopped and their replies stored as interrupted (turn.Runner.Drain).
	defer a.dialogue.Drain(a.cfg.ShutdownTimeout)()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	a.log.Info("stopped")
	return nil
}

// close stops the background loops (the usage recorder flushes once more)
// and releases the database.
func (a *app) close() {
	if a.stopBackground != nil {
		a.stopBackground()
		a.background.Wait()
	}
	if a.migrator != nil {
		_ = a.migrator.Close()
	}
	if a.qdrant != nil {
		_ = a.qdrant.Close()
	}
	if a.index != nil {
		a.index.Close()
	}
	if a.pdf != nil {
		_ = a.pdf.Close()
	}
	if a.vlog != nil {
		_ = a.vlog.Close()
	}
	a.closeTelemetry()
	a.pool.Close()
}
