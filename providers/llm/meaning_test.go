package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// fakeMeaning rates a sentence by a table of its substrings (0 when none
// matches), and rates nothing for a question it was not told about: the
// shape of the encoder, which rates English questions only.
type fakeMeaning struct {
	question string
	rate     map[string]float32
}

func (f fakeMeaning) Similar(question string, sentences []string) []float32 {
	if question != f.question {
		return nil
	}
	out := make([]float32, len(sentences))
	for i, s := range sentences {
		for sub, r := range f.rate {
			if strings.Contains(s, sub) {
				out[i] = r
			}
		}
	}
	return out
}

func TestOfflineRerankByMeaning(t *testing.T) {
	evidence := units(
		"Money arrives in our warehouse before the parcel ships.",
		"Your money arrives back on your card once we have checked the item.",
		"Refunds take five days.",
	)
	const asked = "Does my money arrive?"
	for _, tc := range []struct {
		name    string
		meaning domain.Meaning
		want    string
	}{
		// By words the first two tie, and the first in the evidence wins.
		{"by words only", nil, "Money arrives in our warehouse"},
		{"by meaning too", fakeMeaning{asked, map[string]float32{"on your card": 0.62, "warehouse": 0.31}}, "Your money arrives back"},
		// A meaning that cannot rate the question leaves the words' choice.
		{"meaning cannot rate", fakeMeaning{"another question", nil}, "Money arrives in our warehouse"},
		// A sentence sharing no word is no candidate below minMeaning.
		{"weak meaning alone", fakeMeaning{asked, map[string]float32{"Refunds take": 0.44}}, "Money arrives in our warehouse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewWith(domain.LLMConfig{Provider: domain.LLMOffline}, nil, tc.meaning)
			require.NoError(t, err)
			gen, err := m.Generate(context.Background(), domain.GenerateRequest{Question: asked, Evidence: evidence})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(gen.Answer, tc.want), "got %q", gen.Answer)
			assertQuoted(t, gen.Answer, evidence)
		})
	}
}

func TestOfflineMeaningNeverQuotesAQuestionOrAnotherLanguage(t *testing.T) {
	evidence := units("How do I get a refund?\nRefunds are paid within 5 business days.", "退款将在5个工作日内原路返回。")
	const asked = "When will I see my refund?"
	// The question line means the question most; its answer is quoted,
	// never the question, and never the Chinese sentence.
	meaning := fakeMeaning{asked, map[string]float32{"How do I get a refund?": 0.8, "Refunds are paid": 0.5, "退款": 0.9}}
	m, err := NewWith(domain.LLMConfig{Provider: domain.LLMOffline}, nil, meaning)
	require.NoError(t, err)
	gen, err := m.Generate(context.Background(), domain.GenerateRequest{Question: asked, Evidence: evidence})
	require.NoError(t, err)
	assert.Equal(t, "Refunds are paid within 5 business days.\n\n(Quoted from the knowledge base.)", gen.Answer)
}
