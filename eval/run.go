package eval

import (
	"context"
	"fmt"
	"strings"
)

// Channels a question is asked through.
const (
	ChannelDialogue = "dialogue"
	ChannelRAGLab   = "rag_lab"
)

// Outcome is what the service did with one question on one channel.
type Outcome struct {
	Dataset  Dataset
	Question Question
	Channel  string
	Answer   string
	Transfer bool
	Reason   string
	// Quotes are the cited chunks' texts.
	Quotes []string
	// Why is the RAG lab's best candidates with their scores, for the log.
	Why string
	// Top is the RAG lab's best candidate (zero without one).
	Top Candidate
	// Confidence is the reply's confidence (the dialogue's ChatReply, the
	// RAG lab's result).
	Confidence float64
}

// Candidate is a RAG lab candidate's scores and text.
type Candidate struct {
	Relevance float64 `json:"fusedScore"`
	Coverage  float64 `json:"coverage"`
	Cosine    float64 `json:"vectorScore"`
	Text      string  `json:"text"`
}

// Right: a covered question answered with every expected string.
func (o Outcome) Right() bool {
	return o.Question.Covered && !o.Transfer && o.Question.answeredBy(o.Answer)
}

// CitationMisses: an answer whose citations do not hold what it should
// answer (every expected string, in one cited chunk).
func (o Outcome) CitationMisses() bool {
	if !o.Question.Covered || o.Transfer {
		return false
	}
	for _, q := range o.Quotes {
		if o.Question.answeredBy(q) {
			return false
		}
	}
	return true
}

// Model configures the chat model of every evaluated tenant; nil keeps the
// offline default.
type Model map[string]any

// Strategy, when not nil, is switched to in every evaluated tenant before
// its questions: how thresholds are explored (never how the defaults are
// measured). Fields left out keep the default strategy's values.
type Strategy map[string]any

// RunDataset uploads d into a new knowledge base of c's tenant and asks
// every question through the dialogue and the RAG lab.
func RunDataset(ctx context.Context, c Client, d Dataset, model Model, st Strategy) ([]Outcome, error) {
	if st != nil {
		var next map[string]any
		if err := c.Call(ctx, "GET", "/strategy/retrieval/current", nil, &next); err != nil {
			return nil, err
		}
		for k, v := range st {
			next[k] = v
		}
		if err := c.Call(ctx, "POST", "/strategy/retrieval/switch", next, nil); err != nil {
			return nil, err
		}
	}
	if model != nil {
		var cur struct {
			Version int `json:"version"`
		}
		if err := c.Call(ctx, "GET", "/admin/llm/config/chat", nil, &cur); err != nil {
			return nil, err
		}
		body := map[string]any{"version": cur.Version}
		for k, v := range model {
			body[k] = v
		}
		if err := c.Call(ctx, "PUT", "/admin/llm/config/chat", body, nil); err != nil {
			return nil, err
		}
	}
	var kb struct {
		ID string `json:"id"`
	}
	if err := c.Call(ctx, "POST", "/admin/kb/knowledge-bases", map[string]any{"name": d.Name}, &kb); err != nil {
		return nil, err
	}
	file, err := d.File()
	if err != nil {
		return nil, err
	}
	if _, err := c.Upload(ctx, kb.ID, d.FileName, file); err != nil {
		return nil, &UploadError{Dataset: d.Name, Err: err}
	}
	var out []Outcome
	for _, q := range d.Questions {
		o, err := ask(ctx, c, q.Q)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", d.Name, q.Q, err)
		}
		o.Dataset, o.Question, o.Channel = d, q, ChannelDialogue
		out = append(out, o)
		o, err = lab(ctx, c, q.Q)
		if err != nil {
			return nil, fmt.Errorf("%s: lab %q: %w", d.Name, q.Q, err)
		}
		o.Dataset, o.Question, o.Channel = d, q, ChannelRAGLab
		out = append(out, o)
	}
	return out, nil
}

// UploadError is a document the service did not take (refused, or its
// index job failed): the real set reports such a dataset as not uploadable.
type UploadError struct {
	Dataset string
	Err     error
}

func (e *UploadError) Error() string { return e.Dataset + ": upload: " + e.Err.Error() }
func (e *UploadError) Unwrap() error { return e.Err }

// ask opens a chat session and sends the question as its first message.
func ask(ctx context.Context, c Client, q string) (Outcome, error) {
	var s struct {
		ID string `json:"id"`
	}
	if err := c.Call(ctx, "POST", "/chat/sessions", map[string]any{}, &s); err != nil {
		return Outcome{}, err
	}
	var r struct {
		Answer         string  `json:"answer"`
		ShouldTransfer bool    `json:"shouldTransfer"`
		TransferReason *string `json:"transferReason"`
		Confidence     float64 `json:"confidence"`
		Sources        []struct {
			Quote string `json:"quote"`
		} `json:"sources"`
	}
	if err := c.Call(ctx, "POST", "/chat/sessions/"+s.ID+"/messages", map[string]any{"message": q}, &r); err != nil {
		return Outcome{}, err
	}
	o := Outcome{Answer: r.Answer, Transfer: r.ShouldTransfer, Confidence: r.Confidence}
	if r.TransferReason != nil {
		o.Reason = *r.TransferReason
	}
	for _, src := range r.Sources {
		o.Quotes = append(o.Quotes, src.Quote)
	}
	return o, nil
}

// lab runs the question through the RAG lab with generation.
func lab(ctx context.Context, c Client, q string) (Outcome, error) {
	var r struct {
		Answer         *string `json:"answer"`
		ShouldTransfer bool    `json:"shouldTransfer"`
		TransferReason *struct {
			Code string `json:"code"`
		} `json:"transferReason"`
		Citations []struct {
			Quote string `json:"quote"`
		} `json:"citations"`
		Confidence float64     `json:"confidence"`
		Candidates []Candidate `json:"candidates"`
	}
	if err := c.Call(ctx, "POST", "/admin/rag/experiments/run", map[string]any{"query": q, "generate": true}, &r); err != nil {
		return Outcome{}, err
	}
	o := Outcome{Transfer: r.ShouldTransfer, Confidence: r.Confidence}
	if r.Answer != nil {
		o.Answer = *r.Answer
	}
	if r.TransferReason != nil {
		o.Reason = r.TransferReason.Code
	}
	for _, ci := range r.Citations {
		o.Quotes = append(o.Quotes, ci.Quote)
	}
	var why strings.Builder
	fmt.Fprintf(&why, "confidence %.2f", r.Confidence)
	for i, c := range r.Candidates[:min(2, len(r.Candidates))] {
		fmt.Fprintf(&why, "; #%d relevance %.2f coverage %.2f cosine %.2f %.60q", i+1, c.Relevance, c.Coverage, c.Cosine, c.Text)
	}
	o.Why = why.String()
	if len(r.Candidates) > 0 {
		o.Top = r.Candidates[0]
	}
	return o, nil
}

// Describe is one outcome on a line, for the detailed log.
func (o Outcome) Describe() string {
	mark := "ok  "
	switch {
	case o.Question.Covered && !o.Right():
		mark = "MISS"
	case !o.Question.Covered && !o.Transfer:
		mark = "LEAK"
	}
	what := "answer: " + strings.ReplaceAll(strings.SplitN(o.Answer, "\n\n", 2)[0], "\n", " ")
	if o.Transfer {
		what = "hand-off: " + o.Reason
	}
	line := fmt.Sprintf("%s %-13s %-8s %-10s %q → %s [confidence %.2f]", mark, o.Dataset.Name, o.Channel, o.Question.Kind, o.Question.Q, what, o.Confidence)
	if o.Why != "" {
		line += "\n        (" + o.Why + ")"
	}
	return line
}
