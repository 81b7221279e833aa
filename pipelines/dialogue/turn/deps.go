package turn

import (
	"context"
	"log/slog"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

// Rules gives a tenant's compiled intent rules (an *intent.Cache).
type Rules interface {
	Matcher(ctx context.Context, tenant domain.TenantID) (*intent.Matcher, error)
}

// Flows gives a tenant's script flow by id, compiled for the flow engine
// (a *flow.Cache), and whether it is enabled. An unknown flow is
// CodeNotFound.
type Flows interface {
	Flow(ctx context.Context, tenant domain.TenantID, id string) (f *flow.Compiled, enabled bool, err error)
}

// Prompts gives the tenant's published template version of a scene
// (*prompt.Cache); CodeNotFound when the scene has none (the built-in
// instruction is used).
type Prompts interface {
	PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error)
}

// Decomposer decomposes a customer message with the tenant's active
// decomposition template (*decompose.Decomposer); ok is false when the
// tenant has none.
type Decomposer interface {
	Message(ctx context.Context, tenant domain.TenantID, message string) (res decompose.Result, ok bool, err error)
}

// Guards gives a tenant's compiled guardrails.
type Guards interface {
	For(ctx context.Context, tenant domain.TenantID) (*guard.Guard, error)
}

// Answerer retrieves and decides, then generates (*answer.Answerer): two
// stages the runner calls in a line, its own prompt between them.
type Answerer interface {
	Find(ctx context.Context, tenant domain.TenantID, req answer.Request) (answer.Outcome, error)
	Generate(ctx context.Context, tenant domain.TenantID, out answer.Outcome, choice answer.ModelChoice,
		piece func(domain.StreamEvent) error) (answer.Outcome, error)
}

// Tenants resolves the tenant of a message (*access.Tenants, cached).
type Tenants interface {
	Resolve(ctx context.Context, id domain.TenantID) (domain.Tenant, error)
}

// Deps are the runner's collaborators.
type Deps struct {
	Log      *slog.Logger
	Chat     domain.ChatStore
	Tenants  Tenants
	Settings domain.SettingsStore
	// Metadata gives the tenant's metadata fields, which type the
	// retrieval filter of session slots and decomposed values (a
	// metadata.Cache; nil: retrieval is not filtered by them).
	Metadata domain.MetadataFieldReader
	Rules    Rules
	Flows    Flows
	Prompts  Prompts
	Guards   Guards
	Answerer Answerer
	// Slots gives the tenant's slot definitions, which session slots
	// follow (a slots.Cache; nil: slots are free-form).
	Slots domain.SlotRulesReader
	// Decomposer, when set, decomposes messages before retrieval.
	Decomposer Decomposer
	// Models gives the kb_processing model for conversation summaries.
	Models   domain.ChatModels
	Observer *Observer
	Replays  *Replays
	// Telemetry, when set, observes stages and gives replies the
	// request's trace id.
	Telemetry Telemetry
	// Broadcast: the store tells every replica of a turn's Announce
	// message (the customer's, in a session a person has), whose listener
	// publishes it (Observer.PublishMessage); false publishes it on this
	// replica.
	Broadcast bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}
