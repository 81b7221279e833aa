package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenAILines(t *testing.T) {
	o := newOpenAI("http://x/v1", openModel, "")
	cases := []struct {
		line string
		want piece
		done bool
	}{
		{"", piece{}, false},
		{": OPENROUTER PROCESSING", piece{}, false},
		{"event: message", piece{}, false},
		{"data: [DONE]", piece{}, true},
		{"data:[DONE]", piece{}, true},
		{`data: {"choices":[{"delta":{"content":"Hi"}}]}`, piece{content: "Hi"}, false},
		{`data:{"choices":[{"delta":{"reasoning":"hmm"}}]}`, piece{reasoning: "hmm"}, false},
		// An object where text was expected is ignored, not fatal.
		{`data: {"choices":[{"delta":{"content":"a","reasoning":{"effort":"low"}}}]}`, piece{content: "a"}, false},
		{`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`, piece{finished: true}, false},
		{`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`, piece{hasUsage: true, promptTokens: 3, completionTokens: 4}, false},
	}
	for _, tc := range cases {
		p, done, err := o.line([]byte(tc.line))
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, p, tc.line)
		assert.Equal(t, tc.done, done, tc.line)
	}
	_, _, err := o.line([]byte(`data: {"error":{"message":"upstream overloaded","code":502}}`))
	var pe *providerError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "upstream overloaded", pe.msg)
	_, _, err = o.line([]byte(`data: {not json`))
	assert.Error(t, err)
}

func TestOllamaLines(t *testing.T) {
	o := newOllama("http://x", ollModel, "")
	p, done, err := o.line([]byte(`{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}`))
	require.NoError(t, err)
	assert.Equal(t, piece{reasoning: "hmm"}, p)
	assert.False(t, done)
	p, done, err = o.line([]byte(`{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":7,"eval_count":9}` + "\r"))
	require.NoError(t, err)
	assert.Equal(t, piece{finished: true, hasUsage: true, promptTokens: 7, completionTokens: 9}, p)
	assert.True(t, done)
	_, _, err = o.line([]byte(`{"error":"model requires more system memory"}`))
	var pe *providerError
	require.ErrorAs(t, err, &pe)
}
