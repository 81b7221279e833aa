package remote

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// openAIRequest is the body of POST {base}/embeddings.
type openAIRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions"`
	// EncodingFormat is "float": some compatible servers default to base64.
	EncodingFormat string `json:"encoding_format"`
}

// openAIResponse is the part of the answer we use.
type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// embedOpenAI embeds one batch with an OpenAI-compatible provider.
func (e *Embedder) embedOpenAI(ctx context.Context, texts []string) ([][]float32, error) {
	var resp openAIResponse
	err := e.post(ctx, "/embeddings", openAIRequest{
		Model: e.cfg.Model, Input: texts, Dimensions: e.cfg.Dims, EncodingFormat: "float",
	}, &resp)
	if err != nil {
		return nil, err
	}
	// The protocol does not promise answer order; index does.
	if len(resp.Data) != len(texts) {
		return nil, providerhttp.Unavailable(fmt.Sprintf("the provider answered %d vectors for %d texts", len(resp.Data), len(texts)), nil)
	}
	out := make([][]float32, len(texts))
	seen := make([]bool, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, providerhttp.Unavailable(fmt.Sprintf("the provider answered index %d for %d texts", d.Index, len(texts)), nil)
		}
		if seen[d.Index] {
			return nil, providerhttp.Unavailable(fmt.Sprintf("the provider answered index %d twice", d.Index), nil)
		}
		seen[d.Index] = true
		out[d.Index] = d.Embedding
	}
	return out, nil
}
