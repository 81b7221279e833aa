package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"How do I return my mattresses?", []string{"return", "mattress"}},
		{"Returned items are refunded", []string{"return", "item", "refund"}},
		{"Open 9am–5pm, order A-12345", []string{"open", "9am", "5pm", "order", "12345"}},
		{"ＡＢＣ Ｆｉｌｅ", []string{"abc", "file"}},
		{"退款流程", []string{"退", "款", "退款", "流", "款流", "程", "流程"}},
		{"怎么退货吗", []string{"退", "货", "退货"}},
		{"保修多久？", []string{"保", "修", "保修", "修多"}}, // 多, 久: how long, no topic
		{"Hi, I'd like to know, please", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Terms(c.in), c.in)
	}
}

func TestQuestionTermsWeighTheKindOfAnswerLess(t *testing.T) {
	assert.Equal(t, []QuestionTerm{{"countri", 0.25}, {"deliv", 1}},
		QuestionTerms("Which countries do you deliver to?"))
	assert.Equal(t, []QuestionTerm{{"year", 0.25}, {"guarante", 1}, {"bed", 1}},
		QuestionTerms("How many years of guarantee do I get on the bed?"))
	assert.Equal(t, []QuestionTerm{{"price", 1}, {"lamp", 1}}, QuestionTerms("What is the price of the lamp?"),
		"only the word right after: the topic of 'what is the …' counts fully")
	assert.Equal(t, []QuestionTerm{{"refund", 1}, {"take", 0.25}},
		QuestionTerms("How long does a refund take?"), "the frame of 'how long' names the kind of answer")
	assert.Equal(t, []QuestionTerm{{"batteri", 1}, {"last", 0.25}},
		QuestionTerms("How long will the battery last?"))
	assert.Equal(t, []QuestionTerm{{"take", 1}, {"photo", 1}, {"cabl", 1}},
		QuestionTerms("Can I take photos of the long cable?"), "without 'how long' they count fully")
	assert.Equal(t, []QuestionTerm{{"退", 1}, {"货", 1}, {"退货", 1}}, QuestionTerms("怎么退货吗"))
}
