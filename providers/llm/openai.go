package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// openAI speaks the chat-completions protocol of OpenAI and the many
// servers that copy it (vLLM, LM Studio, llama.cpp, DeepSeek, proxies),
// and of Azure OpenAI, which differs only in its URL and key header.
type openAI struct {
	url   string
	model string // "" for Azure, where the deployment names the model
	// key is sent as "Authorization: Bearer" (OpenAI; none when empty, for
	// keyless local servers) or as "api-key" (Azure).
	key   string
	azure bool
	// streamUsage asks for a final usage chunk; Azure API versions before
	// 2024-09-01 refuse the unknown parameter.
	streamUsage bool
}

// azureUsageVersion is the first Azure API version that accepts
// stream_options. Versions are dates, so they compare as strings.
const azureUsageVersion = "2024-09-01"

func newOpenAI(base, model, key string) *openAI {
	return &openAI{url: base + "/chat/completions", model: model, key: key, streamUsage: true}
}

func newAzure(endpoint, deployment, apiVersion, key string) *openAI {
	u := endpoint + "/openai/deployments/" + url.PathEscape(deployment) +
		"/chat/completions?api-version=" + url.QueryEscape(apiVersion)
	return &openAI{url: u, key: key, azure: true, streamUsage: apiVersion >= azureUsageVersion}
}

func (o *openAI) endpoint() string   { return o.url }
func (o *openAI) streamType() string { return "text/event-stream" }

func (o *openAI) authorize(h http.Header) {
	switch {
	case o.azure:
		h.Set("api-key", o.key)
	case o.key != "":
		h.Set("Authorization", "Bearer "+o.key)
	}
}

// openAIRequest is the request body. Temperature and max_tokens have no
// omitempty: a temperature of 0 is a deliberate choice, and leaving it out
// would get the provider's default (1 at OpenAI) instead.
type openAIRequest struct {
	Model         string         `json:"model,omitempty"`
	Messages      []message      `json:"messages"`
	Temperature   float64        `json:"temperature"`
	MaxTokens     int            `json:"max_tokens"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

func (o *openAI) body(p params, stream bool) any {
	r := openAIRequest{
		Model:       o.model,
		Messages:    messages(p.messages),
		Temperature: p.temperature,
		MaxTokens:   p.maxTokens,
		Stream:      stream,
	}
	if stream && o.streamUsage {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return r
}

// openAIMessage is choices[].message of an answer or choices[].delta of a
// chunk. DeepSeek and vLLM put reasoning in reasoning_content, OpenRouter
// and newer vLLM in reasoning.
type openAIMessage struct {
	Content          text `json:"content"`
	ReasoningContent text `json:"reasoning_content"`
	Reasoning        text `json:"reasoning"`
}

type openAIResponse struct {
	Choices []struct {
		Message      openAIMessage `json:"message"`
		Delta        openAIMessage `json:"delta"`
		FinishReason *string       `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func (o *openAI) parse(data []byte) (piece, error) {
	if err := reported(data); err != nil {
		return piece{}, err
	}
	var r openAIResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return piece{}, err
	}
	if len(r.Choices) == 0 {
		return piece{}, errors.New("the answer has no choices")
	}
	return r.piece(r.Choices[0].Message), nil
}

// sseData is the field prefix of a server-sent event line.
const sseData = "data:"

func (o *openAI) line(line []byte) (piece, bool, error) {
	// Comments (":" keep-alives), event names, ids and blank separators
	// carry nothing for us; chat completions put everything in data lines.
	data, ok := bytes.CutPrefix(line, []byte(sseData))
	if !ok {
		return piece{}, false, nil
	}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return piece{}, false, nil
	case string(data) == "[DONE]":
		return piece{}, true, nil
	}
	if err := reported(data); err != nil {
		return piece{}, false, err
	}
	var r openAIResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return piece{}, false, err
	}
	if len(r.Choices) == 0 {
		// The usage chunk of include_usage has an empty choices list.
		return r.piece(openAIMessage{}), false, nil
	}
	return r.piece(r.Choices[0].Delta), false, nil
}

// piece takes m (the chosen message or delta) and the usage of r.
func (r *openAIResponse) piece(m openAIMessage) piece {
	p := piece{content: string(m.Content), reasoning: string(m.ReasoningContent) + string(m.Reasoning)}
	if len(r.Choices) > 0 && r.Choices[0].FinishReason != nil && strings.TrimSpace(*r.Choices[0].FinishReason) != "" {
		p.finished = true
	}
	if r.Usage != nil {
		p.hasUsage = true
		p.promptTokens = r.Usage.PromptTokens
		p.completionTokens = r.Usage.CompletionTokens
	}
	return p
}
