package remote

import (
	"fmt"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// Kind names the wire protocol of a provider.
type Kind string

// The protocols this package speaks. The values match
// domain.EmbeddingProviderKind.
const (
	// KindOpenAICompatible is POST {base}/embeddings, as OpenAI, vLLM,
	// LM Studio, llama.cpp and many proxies serve it.
	KindOpenAICompatible Kind = "openai_compatible"
	// KindOllama is POST {base}/api/embed of an Ollama server.
	KindOllama Kind = "ollama"
)

// Defaults used for zero Config fields.
const (
	DefaultDims        = domain.EmbeddingDims
	DefaultTimeout     = 30 * time.Second
	DefaultBatchSize   = 64
	DefaultConcurrency = 2
)

// Limits Validate enforces. They keep one misconfigured tenant from
// holding connections or memory without bound. The key's and the model
// name's are providerhttp's.
const (
	maxDims        = 16000 // pgvector's vector type holds at most 16,000
	maxTimeout     = 5 * time.Minute
	maxRetries     = 10
	maxBatchSize   = 2048 // OpenAI's limit on inputs per request
	maxConcurrency = 16
)

// Config describes one remote embedding model. Zero numeric fields take
// the defaults above.
type Config struct {
	Kind Kind
	// BaseURL is e.g. https://api.openai.com/v1 or http://127.0.0.1:11434;
	// the protocol's path is appended to it.
	BaseURL string
	// APIKey is sent as a bearer token to openai_compatible providers (none
	// when empty) and ignored for Ollama. It is never logged nor put in
	// errors.
	APIKey string
	Model  string
	// Dims is the length of every vector (768 by default). It is sent as
	// `dimensions` to OpenAI-compatible providers; Ollama models have a
	// fixed size, which must equal it.
	Dims int
	// Timeout bounds each HTTP attempt, answer body included.
	Timeout time.Duration
	// Retries is the number of extra attempts after a 429, a 500/502/503/504,
	// a timeout or a connection error.
	Retries int
	// BatchSize is the number of texts per request (64 by default).
	BatchSize int
	// Concurrency bounds the parallel requests of one Embed call (2 by default).
	Concurrency int
}

// String describes c with the API key masked, so that logging a Config
// (%v, %+v, slog) never leaks the key.
func (c Config) String() string {
	return fmt.Sprintf("{Kind:%s BaseURL:%s APIKey:%s Model:%s Dims:%d Timeout:%s Retries:%d BatchSize:%d Concurrency:%d}",
		c.Kind, c.BaseURL, providerhttp.MaskKey(c.APIKey), c.Model, c.Dims, c.Timeout, c.Retries, c.BatchSize, c.Concurrency)
}

// GoString masks the key for %#v too.
func (c Config) GoString() string { return "remote.Config" + c.String() }

// Validate reports every problem of c as one CodeValidation error whose
// fields use the admin API's names. Messages never repeat the key or the URL.
func (c Config) Validate() error {
	var fields []domain.FieldError
	add := func(field, msg string) {
		fields = append(fields, domain.FieldError{Field: field, Message: msg})
	}
	switch c.Kind {
	case KindOpenAICompatible, KindOllama:
	default:
		add("/provider", `must be "openai_compatible" or "ollama"`)
	}
	if msg := providerhttp.CheckBaseURL(c.BaseURL); msg != "" {
		add("/baseUrl", msg)
	}
	if msg := providerhttp.CheckAPIKey(c.APIKey); msg != "" {
		add("/apiKey", msg)
	}
	if msg := providerhttp.CheckName(c.Model); msg != "" {
		add("/model", msg)
	}
	if c.Dims < 0 || c.Dims > maxDims {
		add("/dimensions", fmt.Sprintf("must be between 1 and %d", maxDims))
	}
	if c.Timeout < 0 || c.Timeout > maxTimeout {
		add("/timeoutMs", fmt.Sprintf("must be positive and at most %s", maxTimeout))
	}
	if c.Retries < 0 || c.Retries > maxRetries {
		add("/retries", fmt.Sprintf("must be between 0 and %d", maxRetries))
	}
	if c.BatchSize < 0 || c.BatchSize > maxBatchSize {
		add("/batchSize", fmt.Sprintf("must be between 1 and %d", maxBatchSize))
	}
	if c.Concurrency < 0 || c.Concurrency > maxConcurrency {
		add("/concurrency", fmt.Sprintf("must be between 1 and %d", maxConcurrency))
	}
	if len(fields) > 0 {
		return &domain.Error{Code: domain.CodeValidation, Message: "The embedding configuration is not valid.", Fields: fields}
	}
	return nil
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Dims == 0 {
		c.Dims = DefaultDims
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	return c
}
