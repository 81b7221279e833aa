package domain

import (
	"context"
	"time"
)

// UsageType is what a language-model configuration is used for.
type UsageType string

// Usage types.
const (
	UsageChat         UsageType = "chat"
	UsageKBProcessing UsageType = "kb_processing"
)

// LLMProviderKind names a language-model provider.
type LLMProviderKind string

// Language-model providers.
const (
	// LLMOffline is the extractive answerer: it quotes the best evidence.
	LLMOffline LLMProviderKind = "offline"
	// LLMOpenAI is an OpenAI-compatible /chat/completions endpoint.
	LLMOpenAI LLMProviderKind = "openai_compatible"
	// LLMOllama is a local model runner's /api/chat.
	LLMOllama LLMProviderKind = "ollama"
	// LLMAzure is Azure OpenAI: an endpoint, a deployment and an API version.
	LLMAzure LLMProviderKind = "azure_openai"
)

// LLMConfig is a tenant's model for one usage type.
type LLMConfig struct {
	TenantID    TenantID
	Usage       UsageType
	Provider    LLMProviderKind
	BaseURL     string // OpenAI-compatible base URL, Ollama URL, or Azure endpoint
	APIKey      string // a secret: never returned, never logged
	Model       string // model name (Azure: informational)
	Deployment  string // Azure only
	APIVersion  string // Azure only
	Temperature float64
	MaxTokens   int32
	TimeoutMs   int32
	Retries     int32
	Version     int32
	UpdatedAt   *time.Time
	// SetByPlatform says a platform key (the operator) saved it: its
	// calls may reach internal addresses, where a tenant's reach only what
	// the operator allow-lists.
	SetByPlatform bool
}

// ChatMessage is one message of a prompt.
type ChatMessage struct {
	Role    string // system, user, assistant
	Content string
}

// GenerateRequest asks a model for an answer.
type GenerateRequest struct {
	Messages    []ChatMessage
	Temperature float64
	MaxTokens   int
	// Question and Evidence are what the offline extractive answerer uses
	// instead of the prompt (the question and the evidence units, most
	// relevant first, each with the passage it stands in); model clients
	// ignore them.
	Question string
	Evidence []EvidenceUnit
	// QuestionTerms are the question's analysed terms with their synonyms,
	// as retrieval judged them; nil: the answerer analyses Question.
	QuestionTerms []string
}

// EvidenceUnit is one piece of evidence for the extractive answerer: the
// unit retrieval found and the passage around it ("" when it has none).
type EvidenceUnit struct {
	Text    string
	Context string
	// HeadingPath is the headings above the unit, which say what it is
	// about when its own words do not ("Warranty" over "Outdoor
	// furniture is covered for 2 years.").
	HeadingPath []string
}

// Generation is a finished answer. Thought is the model's reasoning, kept
// apart from the answer (<think>…</think> or a provider's reasoning field).
type Generation struct {
	Answer string
	// EvidenceUsed lists the GenerateRequest.Evidence units an extractive
	// answer quotes (nil for a model, whose citations are in the text).
	EvidenceUsed     []int
	Thought          string
	Model            string
	PromptTokens     int
	CompletionTokens int
	// Retries is how many attempts after the first the answer took.
	Retries int
}

// StreamEvent is a piece of a streamed generation: answer text (Delta) or
// reasoning text (Thought), in the order the model produced them.
type StreamEvent struct {
	Delta   string
	Thought string
}

// ChatModel generates answers. Errors are CodeUnavailable when the
// provider is down, rate-limited or too slow after the configured retries,
// and CodeValidation when it refuses the request (bad key, unknown model).
type ChatModel interface {
	// Model names the model, e.g. "openai_compatible:gpt-4o-mini".
	Model() string
	// Generate returns the whole answer.
	Generate(ctx context.Context, req GenerateRequest) (Generation, error)
	// Stream calls emit for each piece as it arrives and returns the whole
	// answer at the end. An emit error stops the stream and is returned.
	Stream(ctx context.Context, req GenerateRequest, emit func(StreamEvent) error) (Generation, error)
}

// OfflineChatModel is the name the offline extractive answerer reports
// (ChatModel.Model): it quotes evidence and cannot compose, so callers that
// need composition (summaries) tell it apart by this name.
const OfflineChatModel = "offline-extractive-v1"

// DefaultLLMConfig is what a usage type uses until the tenant saves one:
// the offline extractive answerer.
func DefaultLLMConfig(tenant TenantID, usage UsageType) LLMConfig {
	return LLMConfig{TenantID: tenant, Usage: usage, Provider: LLMOffline, Temperature: 0.2, MaxTokens: 800, TimeoutMs: 30000, Retries: 2}
}

// Validate checks what each provider needs.
func (c LLMConfig) Validate() error {
	var fields []FieldError
	need := func(ok bool, field string) {
		if !ok {
			fields = append(fields, FieldError{Field: field, Message: "is required for " + string(c.Provider)})
		}
	}
	switch c.Provider {
	case LLMOffline:
	case LLMOpenAI, LLMOllama:
		need(c.BaseURL != "", "/baseUrl")
		need(c.Model != "", "/model")
	case LLMAzure:
		need(c.BaseURL != "", "/baseUrl")
		need(c.Deployment != "", "/deployment")
		need(c.APIVersion != "", "/apiVersion")
	default:
		return Invalid("/provider", "unknown provider")
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The model configuration is incomplete.", Fields: fields}
	}
	return nil
}

// LLMConfigStore persists tenants' model configurations.
type LLMConfigStore interface {
	// GetLLMConfig returns the configuration, or the default (version 0).
	GetLLMConfig(ctx context.Context, tenant TenantID, usage UsageType) (LLMConfig, error)
	// SaveLLMConfig stores c if c.Version is current. Returns
	// CodeVersionConflict for a stale version.
	SaveLLMConfig(ctx context.Context, c LLMConfig) (LLMConfig, error)
}

// ChatModels gives each tenant its configured model per usage type.
type ChatModels interface {
	For(ctx context.Context, tenant TenantID, usage UsageType) (ChatModel, error)
}

// LLMUsageTypes describes the usage types.
func LLMUsageTypes() map[UsageType]string {
	return map[UsageType]string{
		UsageChat:         "Answers customers in the dialogue and the RAG lab.",
		UsageKBProcessing: "Works on knowledge documents (summaries, question generation).",
	}
}

// LLMTest is the outcome of a round trip to a language model.
type LLMTest struct {
	ModelID string
	Latency time.Duration
	// Err is the provider's failure, nil when it answered.
	Err error
}

// Sealer encrypts the secrets the service must keep readable (provider API
// keys) for storage, each for a context naming its record, and opens them.
type Sealer interface {
	// Seal encrypts plain for context; "" stays "".
	Seal(plain, context string) string
	// Open decrypts what Seal made for context. A value stored in clear
	// before sealing is returned as it is, with legacy true.
	Open(stored, context string) (plain string, legacy bool, err error)
	// Current reports whether stored needs no re-sealing: "" or sealed
	// with the current key.
	Current(stored string) bool
}

// Meaning rates how close in meaning sentences are to a question, beyond
// the words they share: the offline answerer's re-ranker of the evidence
// sentences. Similar returns one cosine per sentence, in order, or nil
// when it cannot judge the question (another language than its model's).
// It is safe for concurrent use.
type Meaning interface {
	Similar(question string, sentences []string) []float32
}
