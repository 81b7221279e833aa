package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// Size limits of what a provider may send back. A chat answer is a few
// kilobytes; these only stop a broken or hostile server from filling memory.
const (
	maxAnswerBytes = 4 << 20
	maxLineBytes   = 1 << 20
)

// client is a ChatModel backed by an HTTP provider. It is safe for
// concurrent use: nothing in it changes after New.
type client struct {
	name        string // Model()
	proto       protocol
	hc          *http.Client
	key         string // kept only to redact it from errors
	temperature float64
	maxTokens   int
	timeout     time.Duration // per attempt; for streams, the longest silence
	retries     int
	backoff     httpretry.Backoff
}

var _ domain.ChatModel = (*client)(nil)

// New validates cfg and builds its ChatModel: the offline extractive
// answerer, or a client of an OpenAI-compatible, Azure OpenAI or Ollama
// server. httpClient (nil: a default client) supplies the transport, proxy
// and redirect policy; it is copied, not changed, and its Timeout is not
// used, since TimeoutMs bounds each attempt and a whole-call timeout would
// cut long streams (the caller's context bounds the call).
func New(cfg domain.LLMConfig, httpClient *http.Client) (domain.ChatModel, error) {
	return NewWith(cfg, httpClient, nil)
}

// NewWith is New whose offline answerer re-ranks the evidence sentences
// with meaning (nil: by their words only, as New's).
func NewWith(cfg domain.LLMConfig, httpClient *http.Client, meaning domain.Meaning) (domain.ChatModel, error) {
	if err := Validate(cfg); err != nil {
		return nil, err
	}
	if cfg.Provider == domain.LLMOffline {
		return offline{meaning: meaning}, nil
	}
	return newClient(cfg, httpClient), nil
}

// newClient builds the client of a validated configuration.
func newClient(cfg domain.LLMConfig, httpClient *http.Client) *client {
	hc := &http.Client{}
	if httpClient != nil {
		cp := *httpClient
		hc = &cp
	}
	hc.Timeout = 0
	base := strings.TrimRight(cfg.BaseURL, "/")
	c := &client{
		hc:          hc,
		key:         cfg.APIKey,
		temperature: cfg.Temperature,
		maxTokens:   int(cfg.MaxTokens),
		timeout:     time.Duration(cfg.TimeoutMs) * time.Millisecond,
		retries:     int(cfg.Retries),
	}
	if c.maxTokens == 0 {
		c.maxTokens = DefaultMaxTokens
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	switch cfg.Provider {
	case domain.LLMAzure:
		c.name = string(cfg.Provider) + ":" + cfg.Deployment
		c.proto = newAzure(base, cfg.Deployment, cfg.APIVersion, cfg.APIKey)
	case domain.LLMOllama:
		c.name = string(cfg.Provider) + ":" + cfg.Model
		c.proto = newOllama(base, cfg.Model, cfg.APIKey)
	default:
		c.name = string(cfg.Provider) + ":" + cfg.Model
		c.proto = newOpenAI(base, cfg.Model, cfg.APIKey)
	}
	return c
}

// Model names the provider and model, e.g. "openai_compatible:gpt-4o-mini"
// or "azure_openai:<deployment>".
func (c *client) Model() string { return c.name }

// String names the client without its key, for logs.
func (c *client) String() string { return "llm.client(" + c.name + ")" }

// GoString keeps %#v from printing the key.
func (c *client) GoString() string { return c.String() }

// Generate asks for the whole answer. <think> text and the provider's
// reasoning field go to Thought. Req's Temperature and MaxTokens, when
// above zero, override the configuration's; the temperature is always
// sent, 0 included.
func (c *client) Generate(ctx context.Context, req domain.GenerateRequest) (domain.Generation, error) {
	body, err := c.encode(req, false)
	if err != nil {
		return domain.Generation{}, err
	}
	var gen domain.Generation
	retries, err := c.retry(ctx, func() error {
		var err error
		gen, err = c.generateOnce(ctx, body)
		return err
	})
	gen.Retries = retries
	return gen, c.scrub(err)
}

// generateOnce is one attempt of Generate, bounded by the timeout.
func (c *client) generateOnce(ctx context.Context, body []byte) (domain.Generation, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) }
	resp, err := c.send(actx, body, false)
	if err != nil {
		return domain.Generation{}, c.transportFailure(ctx, timedOut(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return domain.Generation{}, c.statusFailure(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return domain.Generation{}, c.transportFailure(ctx, timedOut(), err)
	}
	if len(data) > maxAnswerBytes {
		return domain.Generation{}, providerhttp.Unavailable(fmt.Sprintf("the language model's answer is larger than %d bytes", maxAnswerBytes), nil)
	}
	p, err := c.proto.parse(data)
	if err != nil {
		return domain.Generation{}, c.unreadable("answer", err)
	}
	answer, thought := splitThink(p.reasoning, p.content)
	return c.generation(answer, thought, p), nil
}

// generation assembles the result. Trailing space is trimmed: a stream
// cannot take back what it sent, but the stored answer needs no "\n\n".
func (c *client) generation(answer, thought string, usage piece) domain.Generation {
	return domain.Generation{
		Answer:           strings.TrimRightFunc(answer, unicode.IsSpace),
		Thought:          strings.TrimRightFunc(thought, unicode.IsSpace),
		Model:            c.name,
		PromptTokens:     usage.promptTokens,
		CompletionTokens: usage.completionTokens,
	}
}

// encode resolves req against the configuration and marshals the body
// once: every attempt sends the same bytes.
func (c *client) encode(req domain.GenerateRequest, stream bool) ([]byte, error) {
	if len(req.Messages) == 0 {
		return nil, domain.Invalid("messages", "at least one message is required")
	}
	p := params{messages: req.Messages, temperature: c.temperature, maxTokens: c.maxTokens}
	if req.Temperature > 0 {
		p.temperature = req.Temperature
	}
	if req.MaxTokens > 0 {
		p.maxTokens = req.MaxTokens
	}
	body, err := json.Marshal(c.proto.body(p, stream))
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeInternal, Message: "the language model request cannot be encoded", Err: err}
	}
	return body, nil
}

// send posts body; each attempt gets a fresh request and reader.
func (c *client) send(ctx context.Context, body []byte, stream bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.proto.endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", c.proto.streamType())
	} else {
		req.Header.Set("Accept", "application/json")
	}
	c.proto.authorize(req.Header)
	return c.hc.Do(req)
}
