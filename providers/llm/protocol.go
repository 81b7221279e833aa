package llm

import (
	"encoding/json"
	"net/http"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// protocol is what differs between the providers' wire formats; the
// attempts, retries, timeouts and reasoning split around it are shared.
type protocol interface {
	// endpoint is the URL chat requests are posted to.
	endpoint() string
	// authorize adds the credentials, if any, to a request's headers.
	authorize(h http.Header)
	// body is the JSON request for p.
	body(p params, stream bool) any
	// streamType is the media type of a streamed answer, for Accept.
	streamType() string
	// parse decodes a whole answer.
	parse(data []byte) (piece, error)
	// line decodes one line of a streamed answer. done is true when the
	// provider says the stream is over.
	line(line []byte) (p piece, done bool, err error)
}

// params are the resolved settings of one call.
type params struct {
	messages    []domain.ChatMessage
	temperature float64
	maxTokens   int
}

// piece is what one answer or one stream chunk carries.
type piece struct {
	content   string
	reasoning string // a provider's separate reasoning field
	// finished is true when the provider said why it stopped (OpenAI's
	// finish_reason): a stream that ends after it lost nothing but usage.
	finished         bool
	hasUsage         bool
	promptTokens     int
	completionTokens int
}

// message is a chat message as OpenAI and Ollama both write it.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func messages(in []domain.ChatMessage) []message {
	out := make([]message, len(in))
	for i, m := range in {
		out[i] = message{Role: m.Role, Content: m.Content}
	}
	return out
}

// text is a string field that some providers fill with another JSON type
// (an object, null); anything but a string reads as "" rather than
// failing the whole answer over a field we only use when it is text.
type text string

// UnmarshalJSON implements json.Unmarshaler.
func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = text(s)
	}
	return nil
}

// providerError is an error the provider reported inside a 200 answer
// (an "error" field instead of content), as opposed to one we could not
// decode. Its text is the provider's, clipped, not yet redacted.
type providerError struct{ msg string }

// Error implements error.
func (e *providerError) Error() string { return e.msg }

// reported returns the provider error of a JSON body or chunk, or nil.
func reported(data []byte) error {
	if msg := providerhttp.ErrorText(data); msg != "" {
		return &providerError{msg: providerhttp.Clip(msg)}
	}
	return nil
}
