package remote

import "context"

// ollamaRequest is the body of POST {base}/api/embed. Ollama has no
// dimensions parameter: the model's own size must equal Config.Dims.
type ollamaRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// ollamaResponse is the part of the answer we use; vectors come in input
// order.
type ollamaResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

// embedOllama embeds one batch with an Ollama server.
func (e *Embedder) embedOllama(ctx context.Context, texts []string) ([][]float32, error) {
	var resp ollamaResponse
	if err := e.post(ctx, "/api/embed", ollamaRequest{Model: e.cfg.Model, Input: texts}, &resp); err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}
