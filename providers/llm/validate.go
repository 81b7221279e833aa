package llm

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// Defaults used for zero LLMConfig fields.
const (
	// DefaultMaxTokens bounds an answer when neither the configuration nor
	// the request does: a customer-service reply, not an essay.
	DefaultMaxTokens = 1024
	// DefaultTimeout bounds each attempt (a whole answer, or the silence
	// between two pieces of a stream).
	DefaultTimeout = 60 * time.Second
)

// Limits Validate enforces. They keep one misconfigured tenant from
// holding connections or memory without bound. The key's and the names'
// are providerhttp's.
const (
	maxTemperature = 2 // OpenAI's range; Ollama accepts more, but nobody needs it
	maxMaxTokens   = 1 << 20
	maxTimeout     = 10 * time.Minute
	maxRetries     = 10
)

// Validate reports every problem of cfg as one CodeValidation error whose
// fields use the admin API's names. Messages never repeat the key or the URL.
// The offline provider needs nothing but its name.
func Validate(cfg domain.LLMConfig) error {
	var fields []domain.FieldError
	add := func(field, msg string) {
		fields = append(fields, domain.FieldError{Field: field, Message: msg})
	}
	switch cfg.Provider {
	case domain.LLMOffline:
		return nil
	case domain.LLMOpenAI, domain.LLMOllama, domain.LLMAzure:
	default:
		add("/provider", `must be "offline", "openai_compatible", "ollama" or "azure_openai"`)
	}
	if msg := providerhttp.CheckBaseURL(cfg.BaseURL); msg != "" {
		add("/baseUrl", msg)
	}
	if msg := providerhttp.CheckAPIKey(cfg.APIKey); msg != "" {
		add("/apiKey", msg)
	} else if cfg.Provider == domain.LLMAzure && cfg.APIKey == "" {
		add("/apiKey", "is required for Azure OpenAI")
	}
	if cfg.Provider == domain.LLMAzure {
		// The deployment and version go into the URL's path and query, so
		// they must not carry URL syntax of their own.
		if msg := checkName(cfg.Deployment); msg != "" {
			add("/deployment", msg)
		}
		if msg := checkName(cfg.APIVersion); msg != "" {
			add("/apiVersion", msg)
		}
	} else if msg := providerhttp.CheckName(cfg.Model); msg != "" {
		add("/model", msg)
	}
	if math.IsNaN(cfg.Temperature) || cfg.Temperature < 0 || cfg.Temperature > maxTemperature {
		add("/temperature", fmt.Sprintf("must be between 0 and %d", maxTemperature))
	}
	if cfg.MaxTokens < 0 || cfg.MaxTokens > maxMaxTokens {
		add("/maxTokens", fmt.Sprintf("must be between 1 and %d", maxMaxTokens))
	}
	if cfg.TimeoutMs < 0 || time.Duration(cfg.TimeoutMs)*time.Millisecond > maxTimeout {
		add("/timeoutMs", fmt.Sprintf("must be positive and at most %d", maxTimeout.Milliseconds()))
	}
	if cfg.Retries < 0 || cfg.Retries > maxRetries {
		add("/retries", fmt.Sprintf("must be between 0 and %d", maxRetries))
	}
	if len(fields) > 0 {
		return &domain.Error{Code: domain.CodeValidation, Message: "The language model configuration is not valid.", Fields: fields}
	}
	return nil
}

// checkName returns what is wrong with an Azure deployment or API
// version, or "": letters, digits, '.', '-' and '_' only.
func checkName(s string) string {
	if msg := providerhttp.CheckName(s); msg != "" {
		return msg
	}
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) && !strings.ContainsRune(".-_", r) {
			return "may contain only letters, digits, '.', '-' and '_'"
		}
	}
	return ""
}
