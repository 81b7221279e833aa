package llm

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// ollama speaks Ollama's native /api/chat: one JSON answer, or a stream of
// JSON lines ending with one that has "done": true and the token counts.
type ollama struct {
	url   string
	model string
	// key is sent as a bearer token when set: Ollama itself needs none,
	// but the proxies put in front of it often do.
	key string
}

func newOllama(base, model, key string) *ollama {
	return &ollama{url: base + "/api/chat", model: model, key: key}
}

func (o *ollama) endpoint() string   { return o.url }
func (o *ollama) streamType() string { return "application/x-ndjson" }

func (o *ollama) authorize(h http.Header) {
	if o.key != "" {
		h.Set("Authorization", "Bearer "+o.key)
	}
}

// ollamaRequest is the request body. Stream has no omitempty because
// Ollama streams unless told "stream": false; temperature has none because
// 0 is a deliberate choice, not "the model's default".
type ollamaRequest struct {
	Model    string        `json:"model"`
	Messages []message     `json:"messages"`
	Stream   bool          `json:"stream"`
	Options  ollamaOptions `json:"options"`
}

type ollamaOptions struct {
	Temperature float64 `json:"temperature"`
	NumPredict  int     `json:"num_predict"`
}

func (o *ollama) body(p params, stream bool) any {
	return ollamaRequest{
		Model:    o.model,
		Messages: messages(p.messages),
		Stream:   stream,
		Options:  ollamaOptions{Temperature: p.temperature, NumPredict: p.maxTokens},
	}
}

// ollamaResponse is a whole answer or one stream line. Ollama 0.9 and
// later put a thinking model's reasoning in message.thinking; before that
// it came inline as <think> tags, which the splitter handles.
type ollamaResponse struct {
	Message struct {
		Content  text `json:"content"`
		Thinking text `json:"thinking"`
	} `json:"message"`
	Done            bool `json:"done"`
	PromptEvalCount int  `json:"prompt_eval_count"`
	EvalCount       int  `json:"eval_count"`
}

func (o *ollama) parse(data []byte) (piece, error) {
	p, _, err := o.decode(data)
	return p, err
}

func (o *ollama) line(line []byte) (piece, bool, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return piece{}, false, nil
	}
	return o.decode(line)
}

func (o *ollama) decode(data []byte) (piece, bool, error) {
	if err := reported(data); err != nil {
		return piece{}, false, err
	}
	var r ollamaResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return piece{}, false, err
	}
	p := piece{content: string(r.Message.Content), reasoning: string(r.Message.Thinking), finished: r.Done}
	if r.Done {
		p.hasUsage = true
		p.promptTokens = r.PromptEvalCount
		p.completionTokens = r.EvalCount
	}
	return p, r.Done, nil
}
