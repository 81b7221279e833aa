package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

var enEvidence = units(
	"Shipping and returns. Orders ship within 2 business days. You can return an unused item within 30 days of delivery for a full refund.\n"+
		"Refunds are issued to the original payment method within 5-7 business days after we receive the item.",
	"Our support team is available 9am-6pm, Monday to Friday. Gift cards cannot be returned or exchanged.",
	"To start a return, open Orders in your account and choose \"Return item\". Version 2.5 of the app also supports returns.",
)

var zhEvidence = units(
	"退换货政策：自签收之日起7天内，商品未拆封可无理由退货。退货运费由买家承担！质量问题退货的运费由我们承担。",
	"会员积分可以在下单时抵扣现金，100积分抵1元。\n客服工作时间为每天9:00至21:00。",
	"退款将在收到退货后3个工作日内原路返回。",
)

// units makes evidence of texts without passages.
func units(texts ...string) []domain.EvidenceUnit {
	out := make([]domain.EvidenceUnit, len(texts))
	for i, t := range texts {
		out[i] = domain.EvidenceUnit{Text: t}
	}
	return out
}

func offlineModel(t *testing.T) domain.ChatModel {
	t.Helper()
	m, err := New(domain.LLMConfig{Provider: domain.LLMOffline}, nil)
	require.NoError(t, err)
	return m
}

func TestOfflinePicksTheRightSentencesInEnglish(t *testing.T) {
	m := offlineModel(t)
	assert.Equal(t, "offline-extractive-v1", m.Model())
	gen, err := m.Generate(context.Background(), domain.GenerateRequest{
		Question: "How many days do I have to return an item?",
		Evidence: enEvidence,
	})
	require.NoError(t, err)
	// The sentence that answers, not every sentence that shares a word.
	assert.Equal(t, "You can return an unused item within 30 days of delivery for a full refund."+
		"\n\n(Quoted from the knowledge base.)", gen.Answer)
	assert.Equal(t, domain.Generation{Answer: gen.Answer, Model: "offline-extractive-v1", EvidenceUsed: []int{0}}, gen)
	assertQuoted(t, gen.Answer, enEvidence)

	gen, err = m.Generate(context.Background(), domain.GenerateRequest{Question: "When is the support team available?", Evidence: enEvidence})
	require.NoError(t, err)
	assert.Equal(t, "Our support team is available 9am-6pm, Monday to Friday.\n\n(Quoted from the knowledge base.)", gen.Answer)
}

func TestOfflinePicksTheRightSentencesInChinese(t *testing.T) {
	m := offlineModel(t)
	gen, err := m.Generate(context.Background(), domain.GenerateRequest{Question: "退货的运费谁承担？", Evidence: zhEvidence})
	require.NoError(t, err)
	assert.Equal(t, "退货运费由买家承担！\n\n（以上内容摘自知识库原文）", gen.Answer)

	gen, err = m.Generate(context.Background(), domain.GenerateRequest{Question: "退款多久到账？", Evidence: zhEvidence})
	require.NoError(t, err)
	assert.Equal(t, "退款将在收到退货后3个工作日内原路返回。\n\n（以上内容摘自知识库原文）", gen.Answer)

	gen, err = m.Generate(context.Background(), domain.GenerateRequest{Question: "客服几点上班", Evidence: zhEvidence})
	require.NoError(t, err)
	assert.Equal(t, "客服工作时间为每天9:00至21:00。\n\n（以上内容摘自知识库原文）", gen.Answer)
	assertQuoted(t, gen.Answer, zhEvidence)
}

func TestOfflineNoteFollowsTheQuestionsLanguage(t *testing.T) {
	// An English question over Chinese evidence gets the English note.
	gen, err := offlineModel(t).Generate(context.Background(), domain.GenerateRequest{
		Question: "What is the 9:00 service time?", Evidence: units("客服工作时间为每天9:00至21:00。"),
	})
	require.NoError(t, err)
	assert.Equal(t, "客服工作时间为每天9:00至21:00。\n\n(Quoted from the knowledge base.)", gen.Answer)
}

func TestOfflineWithoutUsableEvidenceAnswersNothing(t *testing.T) {
	m := offlineModel(t)
	for _, req := range []domain.GenerateRequest{
		{Question: "How do I return an item?"},
		{Question: "How do I return an item?", Evidence: units()},
		{Question: "How do I return an item?", Evidence: units("", "  \n ")},
		{Question: "Do you sell bicycles?", Evidence: enEvidence},
		{Question: "What is it?", Evidence: enEvidence}, // only stop words
		{Question: "", Evidence: enEvidence},
	} {
		gen, err := m.Generate(context.Background(), req)
		require.NoError(t, err)
		assert.Empty(t, gen.Answer, "%+v", req)
		var events []domain.StreamEvent
		gen, err = m.Stream(context.Background(), req, collect(&events))
		require.NoError(t, err)
		assert.Empty(t, gen.Answer)
		assert.Empty(t, events)
	}
}

func TestOfflineQuotesTheAnswerOfAQuestionAnswerPair(t *testing.T) {
	gen, err := offlineModel(t).Generate(context.Background(), domain.GenerateRequest{
		Question: "Can I cancel my order?",
		Evidence: units("Q: Can I cancel my order? A: Orders can be cancelled free of charge until they ship.", "Returns are free."),
	})
	require.NoError(t, err)
	assert.Equal(t, "Orders can be cancelled free of charge until they ship.\n\n(Quoted from the knowledge base.)", gen.Answer)
}

// An answer line that the question matches by itself (its question line
// shares fewer of the question's words) is quoted without its label too.
func TestOfflineQuotesAnAnswerLineWithoutItsLabel(t *testing.T) {
	evidence := units("Q: How long do refunds take?\nA: Refunds are paid to the original payment method within 5 working days.\n" +
		"Q: Do you ship to Canada?\nA: Yes, we ship to Canada; delivery takes 7 to 10 days.")
	gen, err := offlineModel(t).Generate(context.Background(), domain.GenerateRequest{
		Question: "How long does delivery to Canada take?", Evidence: evidence,
	})
	require.NoError(t, err)
	assert.Equal(t, "Yes, we ship to Canada; delivery takes 7 to 10 days.\n\n(Quoted from the knowledge base.)", gen.Answer)
	assertQuoted(t, gen.Answer, evidence)
}

func TestOfflineQuotesTheSentenceAReferenceLeansOn(t *testing.T) {
	gen, err := offlineModel(t).Generate(context.Background(), domain.GenerateRequest{
		Question: "How far ahead must assembly be booked?",
		Evidence: []domain.EvidenceUnit{{
			Text:    "It must be booked at least 3 days before the delivery date.",
			Context: "Our technicians assemble your furniture on delivery. It must be booked at least 3 days before the delivery date.",
		}},
	})
	require.NoError(t, err)
	assert.Equal(t, "Our technicians assemble your furniture on delivery. It must be booked at least 3 days before the delivery date."+
		"\n\n(Quoted from the knowledge base.)", gen.Answer)
}

func TestOfflineUsesTheLastUserMessageWithoutAQuestion(t *testing.T) {
	gen, err := offlineModel(t).Generate(context.Background(), domain.GenerateRequest{
		Messages: []domain.ChatMessage{{Role: "user", Content: "gift cards?"}, {Role: "assistant", Content: "Sorry?"}, {Role: "user", Content: "Can gift cards be exchanged?"}},
		Evidence: enEvidence,
	})
	require.NoError(t, err)
	assert.Equal(t, "Gift cards cannot be returned or exchanged.\n\n(Quoted from the knowledge base.)", gen.Answer)
}

func TestOfflineStreamIsGenerateInPieces(t *testing.T) {
	m := offlineModel(t)
	req := domain.GenerateRequest{Question: "How many days do I have to return an item?", Evidence: enEvidence}
	whole, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	var events []domain.StreamEvent
	gen, err := m.Stream(context.Background(), req, collect(&events))
	require.NoError(t, err)
	assert.Equal(t, whole, gen)
	assert.Len(t, events, 2, "the sentence and the note")
	assert.Equal(t, whole.Answer, deltas(events))
	assert.Empty(t, thoughts(events))

	again, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, whole, again, "deterministic")

	stop := errors.New("gone")
	_, err = m.Stream(context.Background(), req, func(domain.StreamEvent) error { return stop })
	assert.Same(t, stop, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Generate(ctx, req)
	assert.ErrorIs(t, err, context.Canceled)
}

// assertQuoted checks that every sentence of answer, up to the note, is
// taken word for word from the evidence.
func assertQuoted(t *testing.T, answer string, evidence []domain.EvidenceUnit) {
	t.Helper()
	body, _, found := strings.Cut(answer, "\n\n")
	require.True(t, found, "the note is on its own line")
	var all strings.Builder
	for _, e := range evidence {
		all.WriteString(e.Text + "\n")
	}
	for _, s := range analysis.Sentences(body) {
		assert.Contains(t, all.String(), s)
	}
}

// A sentence that stops before its end (no full stop, the command on the
// next line) is quoted with what completes it.
func TestOfflineQuotesAnUnfinishedSentenceWithItsEnd(t *testing.T) {
	m := offlineModel(t)
	for _, c := range []struct{ question, text, want string }{
		{"How do I upgrade from the command line?", "To upgrade from the command line, run\n\naptitude full-upgrade\n\nThe upgrade may take a while.",
			"To upgrade from the command line, run aptitude full-upgrade"},
		{"怎么从命令行升级系统？", "要从命令行升级系统，请运行\n\naptitude full-upgrade\n\n升级可能需要一些时间。", "要从命令行升级系统，请运行"},
	} {
		gen, err := m.Generate(context.Background(), domain.GenerateRequest{Question: c.question, Evidence: units(c.text)})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(gen.Answer, c.want), "got %q", gen.Answer)
		assert.Contains(t, gen.Answer, "aptitude full-upgrade")
		assert.NotContains(t, gen.Answer, "take a while")
		assert.NotContains(t, gen.Answer, "需要一些时间")
	}
}
