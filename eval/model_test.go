package eval

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The EVAL_LLM_* path: every tenant's chat model is an OpenAI-compatible
// endpoint (here a local one that answers with the first numbered source
// of its prompt, cited), and the questions are answered through it.
func TestEvalRunsAgainstAModelEndpoint(t *testing.T) {
	var calls atomic.Int32
	source := regexp.MustCompile(`\[1\][^\n]*\n([^\n]+)`)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var body struct {
			Messages []struct{ Role, Content string }
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		answer := "I do not know."
		if m := source.FindStringSubmatch(body.Messages[0].Content); m != nil {
			answer = strings.TrimSpace(m[1]) + " [1]"
		}
		reply, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
		_, _ = w.Write(reply)
	}))
	t.Cleanup(model.Close)
	c := startService(t)
	c.Tenant = "eval-model"
	d := Dataset{Name: "mini", Language: "en", Kind: "text", FileName: "faq.txt",
		Text: "You can return most items within 30 days of delivery.\nStandard delivery takes 3 to 5 working days.\n",
		Questions: []Question{
			{Q: "How long do I have to return an item?", Covered: true, Kind: KindDirect, Expect: []string{"30 days"}},
			{Q: "Do you accept bitcoin?", Kind: KindUncovered},
		}}
	outs, err := RunDataset(t.Context(), c, d, Model{"provider": "openai_compatible", "baseUrl": model.URL + "/v1", "model": "fake"}, nil)
	require.NoError(t, err)
	require.Len(t, outs, 4, "two questions, two channels")
	for _, o := range outs {
		if o.Question.Covered {
			assert.True(t, o.Right(), "%s: answered through the model: %q (%s)", o.Channel, o.Answer, o.Reason)
			assert.False(t, o.CitationMisses(), "%s: [1] maps to the cited source", o.Channel)
		} else {
			assert.True(t, o.Transfer, "%s: still handed off before the model", o.Channel)
		}
	}
	assert.Positive(t, calls.Load(), "the model endpoint was called")
}
