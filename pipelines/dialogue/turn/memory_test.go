package turn

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func msgs(n int) []domain.SessionMessage {
	out := make([]domain.SessionMessage, n)
	for i := range out {
		role := domain.RoleUser
		if i%2 == 1 {
			role = domain.RoleAssistant
		}
		out[i] = domain.SessionMessage{ID: "msg_" + string(rune('a'+i)), Role: role, Content: "Sentence number " + string(rune('a'+i)) + ". More text."}
	}
	return out
}

func TestSummaryWaitsForABatchOutsideTheWindow(t *testing.T) {
	z := summarizer{}
	_, _, ok, _, err := z.update(context.Background(), "t1", "", "", msgs(RecentTurns+summaryBatch-1))
	require.NoError(t, err)
	assert.False(t, ok, "three messages out of the window are not a batch")

	sum, upTo, ok, _, err := z.update(context.Background(), "t1", "", "", msgs(RecentTurns+summaryBatch))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "msg_d", upTo, "the newest message outside the recent window")
	assert.Equal(t, "user: Sentence number a.\nassistant: Sentence number b.\nuser: Sentence number c.\nassistant: Sentence number d.", sum)

	_, _, ok, _, err = z.update(context.Background(), "t1", sum, upTo, msgs(RecentTurns+summaryBatch))
	require.NoError(t, err)
	assert.False(t, ok, "already summarised")
}

func TestExtractiveSummaryIsBounded(t *testing.T) {
	long := strings.Repeat("word ", 400)
	s := ""
	for range 50 {
		s = extractive(s, []domain.SessionMessage{{Role: "user", Content: long}})
	}
	assert.LessOrEqual(t, utf8.RuneCountInString(s), MaxSummaryRunes)
	assert.Equal(t, "你好。", firstSentence("你好。我想退货"))
}

func TestRetrievalQueryExpandsShortFollowUps(t *testing.T) {
	recent := []domain.SessionMessage{{Role: domain.RoleUser, Content: "How long does shipping to Germany take?"}, {Role: domain.RoleAssistant, Content: "3 days"}}
	q, expanded := retrievalQuery("and Japan?", recent)
	assert.True(t, expanded)
	assert.Equal(t, "How long does shipping to Germany take?\nand Japan?", q)
	q, expanded = retrievalQuery("How long does shipping to Japan usually take?", recent)
	assert.False(t, expanded)
	assert.Equal(t, "How long does shipping to Japan usually take?", q)
}

// summaryModel is a kb_processing model that summarises by counting.
type summaryModel struct{ got []domain.ChatMessage }

func (m *summaryModel) Model() string { return "openai_compatible:small" }
func (m *summaryModel) Generate(_ context.Context, req domain.GenerateRequest) (domain.Generation, error) {
	m.got = req.Messages
	return domain.Generation{Answer: "  The customer asked about four things.  "}, nil
}
func (m *summaryModel) Stream(ctx context.Context, req domain.GenerateRequest, _ func(domain.StreamEvent) error) (domain.Generation, error) {
	return m.Generate(ctx, req)
}

type modelsFor map[domain.UsageType]domain.ChatModel

func (m modelsFor) For(_ context.Context, _ domain.TenantID, u domain.UsageType) (domain.ChatModel, error) {
	return m[u], nil
}

func TestSummaryUsesTheKBProcessingModelWhenConfigured(t *testing.T) {
	m := &summaryModel{}
	z := summarizer{models: modelsFor{domain.UsageKBProcessing: m}}
	sum, upTo, ok, _, err := z.update(context.Background(), "t1", "earlier", "", msgs(RecentTurns+summaryBatch))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "The customer asked about four things.", sum)
	assert.Equal(t, "msg_d", upTo)
	require.Len(t, m.got, 2)
	assert.Contains(t, m.got[1].Content, "Summary so far:\nearlier")
	assert.Contains(t, m.got[1].Content, "user: Sentence number a.")
	assert.NotContains(t, m.got[1].Content, "Sentence number e", "the recent turns are recalled verbatim, not summarised")
}
