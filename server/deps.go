package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/dashboard"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
	"github.com/cs-assistant/assistant/pipelines/ingest"
	"github.com/cs-assistant/assistant/sharing"
)

// Keys is what the server needs of the API-key service.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (domain.Principal, error)
	Create(ctx context.Context, caller domain.Principal, in access.CreateKeyInput) (domain.APIKey, string, error)
	List(ctx context.Context, caller domain.Principal, f domain.APIKeyFilter, p domain.PageRequest) (domain.Page[domain.APIKey], error)
	Get(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, error)
	Revoke(ctx context.Context, caller domain.Principal, id string) error
	Rotate(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, string, error)
}

// Tenants is what the server needs of the tenant service.
type Tenants interface {
	Enter(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error)
	List(ctx context.Context, caller domain.Principal, f domain.TenantFilter, p domain.PageRequest) (domain.Page[domain.Tenant], error)
	Get(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error)
	Update(ctx context.Context, caller domain.Principal, id domain.TenantID, p domain.TenantPatch) (domain.Tenant, error)
}

// Quotas is what the server needs of the quota service (access.Quotas).
type Quotas interface {
	// Usage returns each of t's quotas with its use.
	Usage(ctx context.Context, t domain.Tenant) (domain.QuotaUsage, error)
	// OpenStream counts an event stream of the request's key in its
	// tenant until close is called; CodeQuotaExceeded when the key has
	// as many open as the tenant's quota allows.
	OpenStream(ctx context.Context) (close func(), err error)
}

// Ingest is what the server needs of the ingestion service.
type Ingest interface {
	Upload(ctx context.Context, u ingest.Upload) (domain.Document, domain.IndexJob, []string, error)
	// Propose adds proposed metadata to an upload that asks for it and
	// returns what it added.
	Propose(ctx context.Context, u ingest.Upload) (ingest.Upload, map[string]any, error)
	Reindex(ctx context.Context, tenant domain.TenantID, documentID string) (domain.Document, domain.IndexJob, error)
	ReindexAll(ctx context.Context, tenant domain.TenantID, scope ingest.ReindexScope) (ingest.Reindexed, error)
	DeleteDocument(ctx context.Context, tenant domain.TenantID, id string) error
	DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, id string) error
}

// Retriever finds evidence as the dialogue does: the kb-search tool's one
// path.
type Retriever interface {
	Retrieve(ctx context.Context, tenant domain.TenantID, q retrieve.Query) (retrieve.Result, error)
}

// EmbeddingConfigs is what the server needs of the embedding configuration service.
type EmbeddingConfigs interface {
	Get(ctx context.Context, tenant domain.TenantID) (domain.EmbeddingConfig, string, error)
	Update(ctx context.Context, cfg domain.EmbeddingConfig) (domain.EmbeddingConfig, string, int32, error)
	Test(ctx context.Context, tenant domain.TenantID) (domain.EmbeddingTest, error)
}

// Strategies is what the server needs of the retrieval strategy service.
type Strategies interface {
	Current(ctx context.Context, tenant domain.TenantID) (domain.RetrievalStrategy, error)
	Default(ctx context.Context, tenant domain.TenantID) (domain.RetrievalStrategy, error)
	Validate(ctx context.Context, tenant domain.TenantID, st domain.RetrievalStrategy) ([]domain.RiskFinding, int, error)
	Switch(ctx context.Context, tenant domain.TenantID, keyID string, st domain.RetrievalStrategy) (retrieve.Change, error)
	Rollback(ctx context.Context, tenant domain.TenantID, keyID string) (retrieve.Change, error)
	Audit(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.StrategyAudit], error)
	Metrics(ctx context.Context, tenant domain.TenantID) ([]domain.StrategyMetrics, error)
}

// ModelConfigs is what the server needs of the model configuration service.
type ModelConfigs interface {
	Get(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMConfig, string, error)
	Update(ctx context.Context, cfg domain.LLMConfig) (domain.LLMConfig, string, error)
	Test(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMTest, error)
}

// IntentRules is what the server needs of the intent rule service: the
// rules, their test and their monitoring.
type IntentRules interface {
	Create(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.IntentRule, error)
	List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.IntentRule], error)
	Update(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Test(ctx context.Context, tenant domain.TenantID, id, message string) (intent.TestResult, error)
	Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time, p domain.PageRequest) (domain.IntentStatsPage, error)
	Hits(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.IntentHitRecord], error)
}

// ScriptFlows is what the server needs of the script-flow administration
// (flow.Service).
type ScriptFlows interface {
	Create(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.ScriptFlow, error)
	List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ScriptFlow], error)
	Update(ctx context.Context, f domain.ScriptFlow) (domain.ScriptFlow, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Simulate(ctx context.Context, tenant domain.TenantID, id string, inputs []string) ([]flow.Reply, error)
	Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time, p domain.PageRequest) (flow.Report, error)
}

// PromptTemplates is what the server needs of the prompt template service
// (prompt.Service).
type PromptTemplates interface {
	Create(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.PromptTemplate, error)
	List(ctx context.Context, tenant domain.TenantID, scene *domain.PromptScene, p domain.PageRequest) (domain.Page[domain.PromptTemplate], error)
	Update(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.PromptVersion], error)
	Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error)
	Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error)
	Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, values map[string]string) (prompt.PreviewResult, error)
	Monitoring(ctx context.Context, tenant domain.TenantID, from, to *time.Time, scene *domain.PromptScene) (prompt.Report, error)
}

// Guardrails is what the server needs of the guardrail service.
type Guardrails interface {
	CreateWord(ctx context.Context, w domain.ForbiddenWord) (domain.ForbiddenWord, error)
	GetWord(ctx context.Context, tenant domain.TenantID, id string) (domain.ForbiddenWord, error)
	ListWords(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ForbiddenWord], error)
	UpdateWord(ctx context.Context, w domain.ForbiddenWord) (domain.ForbiddenWord, error)
	DeleteWord(ctx context.Context, tenant domain.TenantID, id string) error
	CreateRule(ctx context.Context, r domain.BehaviorRule) (domain.BehaviorRule, error)
	GetRule(ctx context.Context, tenant domain.TenantID, id string) (domain.BehaviorRule, error)
	ListRules(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.BehaviorRule], error)
	UpdateRule(ctx context.Context, r domain.BehaviorRule) (domain.BehaviorRule, error)
	DeleteRule(ctx context.Context, tenant domain.TenantID, id string) error
	Settings(ctx context.Context, tenant domain.TenantID) (domain.GuardSettings, error)
	SaveSettings(ctx context.Context, s domain.GuardSettings) (domain.GuardSettings, error)
	Test(ctx context.Context, tenant domain.TenantID, text string, stage domain.GuardStage) (guard.Verdict, error)
	Stats(ctx context.Context, tenant domain.TenantID, from, to *time.Time) (domain.GuardStats, error)
}

// Slots is what the server needs of the slot definitions (slots.Service).
type Slots interface {
	Create(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.SlotDefinition, error)
	List(ctx context.Context, tenant domain.TenantID, status *domain.SlotStatus, p domain.PageRequest) (domain.Page[domain.SlotDefinition], error)
	Update(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	// Check checks session slot values against the tenant's definitions
	// and returns them as a session stores them.
	Check(ctx context.Context, tenant domain.TenantID, field string, values map[string]string) (map[string]string, error)
}

// DecompositionTemplates is what the server needs of the decomposition
// template administration (decompose.Service).
type DecompositionTemplates interface {
	Create(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.DecompositionTemplate, error)
	List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.DecompositionTemplate], error)
	Update(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.DecompositionVersion], error)
	Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error)
	Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error)
	Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, message string) (decompose.Result, error)
}

// Shares is what the server needs of the share-link service
// (sharing.Service).
type Shares interface {
	Create(ctx context.Context, in sharing.CreateInput) (sharing.Created, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.Share, error)
	List(ctx context.Context, tenant domain.TenantID, f domain.ShareFilter, p domain.PageRequest) (domain.Page[domain.Share], error)
	Revoke(ctx context.Context, tenant domain.TenantID, id string) error
	// Bind and Read serve the public share page: the token names the link
	// and its tenant.
	Bind(ctx context.Context, token, deviceID string) (sharing.Binding, error)
	Read(ctx context.Context, token, deviceID, deviceToken string, p domain.PageRequest) (sharing.Page, error)
}

// Telemetry is what the server reports to (telemetry.HTTP); nil reports
// nothing and leaves /metrics unmounted.
type Telemetry interface {
	// Request starts observing one request: the returned context carries
	// its span, and end is called once with the status answered and the
	// request id. operation is the contract's operationId, or "GET /healthz"
	// for a route outside the contract, or "unmatched"; method is a
	// standard method or "other"; route is the route template ("" when
	// none matched). None of them holds a raw path.
	Request(r *http.Request, operation, method, route string) (ctx context.Context, end func(status int, requestID string))
	// StreamOpened counts an open event stream of operation until closed
	// is called.
	StreamOpened(operation string) (closed func())
	// MetricsHandler serves the scrape endpoint, GET /metrics.
	MetricsHandler() http.Handler
}

// Answerer is what the server needs of the answering pipeline.
type Answerer interface {
	Run(ctx context.Context, tenant domain.TenantID, req answer.Request) (answer.Outcome, error)
	Find(ctx context.Context, tenant domain.TenantID, req answer.Request) (answer.Outcome, error)
	LabPrompt(ctx context.Context, tenant domain.TenantID, out *answer.Outcome, dry bool) error
	Generate(ctx context.Context, tenant domain.TenantID, out answer.Outcome, choice answer.ModelChoice,
		piece func(domain.StreamEvent) error) (answer.Outcome, error)
}

// Dialogue is what the server needs of the dialogue runtime.
type Dialogue interface {
	Handle(ctx context.Context, in turn.Input) (turn.Reply, error)
	Resume(ctx context.Context, tenant domain.TenantID, sessionID, lastEventID string, write func(domain.ReplyEvent) error) error
	Watch(ctx context.Context, tenant domain.TenantID, session string) (*turn.Subscription, error)
}

// Dashboard is what the server needs of the dashboard service.
type Dashboard interface {
	Stats(ctx context.Context, tenant domain.TenantID, r dashboard.Request) (dashboard.Stats, error)
}

// Deps are the server's collaborators, built by cmd/assistant.
type Deps struct {
	Log     *slog.Logger
	Keys    Keys
	Tenants Tenants
	// Quotas reports tenants' quotas and counts their keys' event streams
	// (nil: no stream is counted, and tenants carry no usage).
	Quotas         Quotas
	Settings       domain.SettingsStore
	KnowledgeBases domain.KnowledgeBaseStore
	Metadata       domain.MetadataStore
	Documents      domain.DocumentStore
	Jobs           domain.JobStore
	Ingest         Ingest
	Retriever      Retriever
	Embedding      EmbeddingConfigs
	Strategies     Strategies
	Models         ModelConfigs
	Answerer       Answerer
	// Dialogue runs customer messages (the turn runner).
	Dialogue Dialogue
	// IntentRules administers intent rules and reports their monitoring.
	IntentRules IntentRules
	// ScriptFlows administers script flows and reports their monitoring.
	ScriptFlows     ScriptFlows
	PromptTemplates PromptTemplates
	Guardrails      Guardrails
	// Slots administers slot definitions and checks session slots.
	Slots Slots
	// Decomposition administers decomposition templates.
	Decomposition DecompositionTemplates
	// Chat keeps sessions, messages, tool traces and reply events.
	Chat domain.ChatStore
	// Handoffs keeps the hand-off state of sessions: the agents' queue,
	// claims, replies, notes and the log.
	Handoffs domain.HandoffStore
	// Dashboard computes the dashboard's figures.
	Dashboard Dashboard
	// Conversations searches, traces and exports conversations.
	Conversations domain.ConversationStore
	// Ready reports whether the service can serve: database reachable and
	// migrations applied.
	Ready func(ctx context.Context) error
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64
	// MaxUploadBytes bounds an uploaded file.
	MaxUploadBytes int64
	// BodyReadTimeout bounds reading a JSON request body; uploads get it
	// plus their size at the slowest accepted rate (0: unbounded).
	BodyReadTimeout time.Duration
	// FrontendBaseURL is the share-link base of tenants that set none.
	FrontendBaseURL string
	// Idempotency keeps the responses of requests sent with an
	// Idempotency-Key (nil: the header is ignored).
	Idempotency domain.IdempotencyStore
	// Shares makes share links and serves their public pages.
	Shares Shares
	// RateLimits are the default request rate limits (zero: unlimited).
	RateLimits RateLimits
	// CORSOrigins are the browser origins allowed to call the API (none:
	// no CORS headers).
	CORSOrigins []string
	// MetricsElsewhere: GET /metrics is served on an address of its own
	// (config MetricsAddr), not with the API.
	MetricsElsewhere bool
	// Telemetry receives the requests' spans and metrics and serves
	// /metrics (nil: none of it).
	Telemetry Telemetry
}
