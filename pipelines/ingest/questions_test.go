package ingest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuestionsAreReadOneALine(t *testing.T) {
	cases := []struct {
		name, answer string
		want         []string
	}{
		{"plain lines", "When will I get my money back?\nCan I return it without a receipt?",
			[]string{"When will I get my money back?", "Can I return it without a receipt?"}},
		{"numbering, bullets and labels are stripped", "1. How fast is delivery?\n- Do you ship abroad?\nQ2: What does express cost?",
			[]string{"How fast is delivery?", "Do you ship abroad?", "What does express cost?"}},
		{"an introduction and blank lines are dropped", "Here are the questions:\n\n  How do I reset my password?  \n",
			[]string{"How do I reset my password?"}},
		{"repeats count once, whatever their case", "Is there a warranty?\nIS THERE A WARRANTY?", []string{"Is there a warranty?"}},
		{"quotes are stripped", `"Where is my parcel?"`, []string{"Where is my parcel?"}},
		{"Chinese list markers", "1、多久能退款？\n问题：可以开发票吗？", []string{"多久能退款？", "可以开发票吗？"}},
		{"at most three", "A one?\nA two?\nA three?\nA four?", []string{"A one?", "A two?", "A three?"}},
		{"an overlong line is no question", strings.Repeat("why ", 100) + "?\nIs it free?", []string{"Is it free?"}},
		{"nothing", "   \n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, parseQuestions(c.answer))
		})
	}
}
