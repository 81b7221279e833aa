package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A question's words name the kind of answer it asks for, in English and
// in Chinese; a weight before a price ("how much … weigh"), and none when
// they name none.
func TestAskedKind(t *testing.T) {
	cases := map[string]AnswerKind{
		"How long does a refund take?":                   DurationAnswer,
		"How soon do orders ship?":                       DurationAnswer,
		"How many years of guarantee do I get?":          DurationAnswer,
		"退款要多久？":                                         DurationAnswer,
		"How much does express delivery cost?":           PriceAnswer,
		"What is the price of the lamp?":                 PriceAnswer,
		"安装服务多少钱？":                                       PriceAnswer,
		"How much does the Malmo dining chair weigh?":    WeightAnswer,
		"How heavy is the sofa?":                         WeightAnswer,
		"Do you deliver to Austria?":                     AnyAnswer,
		"How do I clean leather?":                        AnyAnswer,
		"How much is too much cleaner for a wooden top?": AnyAnswer,
		"What is the phone number of the billing team?":  ContactAnswer,
		"How can I contact customer service?":            ContactAnswer,
		"客服电话是多少？":                                       ContactAnswer,
		"When are you open on Saturday?":                 TimeAnswer,
		"What time does the showroom close?":             TimeAnswer,
		"你们几点开门？":                                        TimeAnswer,
		"Where is your showroom?":                        PlaceAnswer,
		"Where can I get the installation images?":       PlaceAnswer,
		"门店在哪里？":                                         PlaceAnswer,
		"Who wrote the Linux kernel?":                    PartyAnswer,
		"Linux 是谁写的？":                                    PartyAnswer,
	}
	for q, want := range cases {
		assert.Equal(t, want, AskedKind(q), q)
	}
}

// A text holds a kind when it has an expression of it: a number with a
// unit of time (or of length, which answers "how long" too), a currency,
// a unit of weight.
func TestAnswerKindHeldBy(t *testing.T) {
	held := map[AnswerKind][]string{
		DurationAnswer: {"within 3 working days", "a 2-year warranty", "every 6 months", "3 to 5 working days",
			"arrives the next working day", "two weeks", "a 220 cm sofa", "三个工作日内原路退回", "签收后七天内", "10 years"},
		PriceAnswer:   {"costs 49 EUR per item", "Price (EUR): 89", "€12.50", "USD 30", "每件收费80元", "free of charge"},
		WeightAnswer:  {"weighs 7 kg", "7.5kg", "12 lbs", "重5公斤"},
		ContactAnswer: {"Call +49 30 1234 5678", "write to billing@example.com", "see https://example.com/help", "请拨打 400-820-1234"},
		TimeAnswer:    {"open Monday to Friday", "from 9:00 to 18:00", "周一至周五营业", "每天上午9点开门"},
		PartyAnswer:   {"Linux is written by Linus Torvalds.", "Debian 计划由 Ian Murdock 建立。"},
		PlaceAnswer:   {"Our showroom is at Torstrasse 112, Berlin.", "from a Debian mirror", "in /usr/share/doc", "门店位于北京市朝阳区"},
	}
	notHeld := map[AnswerKind][]string{
		DurationAnswer: {"Damage from water is not covered by the warranty.", "Call us on 030 1234 5678", "跌落或进水造成的损坏不在保修范围内。"},
		PriceAnswer:    {"within 3 working days", "Order 12345 shipped", "我们支持支付宝"},
		WeightAnswer:   {"costs 49 EUR", "a 2-year warranty"},
		ContactAnswer:  {"Contact our billing team for invoices.", "我们会尽快处理"},
		TimeAnswer:     {"Refunds are paid to your card.", "我们支持支付宝"},
		PlaceAnswer:    {"refunds are paid to your card", "我们支持支付宝"},
	}
	for k, texts := range held {
		for _, text := range texts {
			assert.True(t, k.HeldBy(text), "%s holds %s", text, k.Term())
			assert.Contains(t, EvidenceTerms(text), k.Term(), text)
		}
	}
	for k, texts := range notHeld {
		for _, text := range texts {
			assert.False(t, k.HeldBy(text), "%s does not hold %s", text, k.Term())
			assert.NotContains(t, EvidenceTerms(text), k.Term(), text)
		}
	}
	assert.False(t, AnyAnswer.HeldBy("within 3 days"))
	for _, c := range cues {
		k := c.kind
		assert.NotContains(t, Terms("refund "+k.Term()+" #x"), k.Term(), "no text cuts into a kind's term")
		assert.NotContains(t, TermSet(k.Term()), k.Term())
	}
}
