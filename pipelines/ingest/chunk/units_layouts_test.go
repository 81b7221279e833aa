package chunk

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// textDoc is a text file's document, one block per line as parseText
// gives them (blank lines numbered, not kept).
func textDoc(text string) parse.Document {
	var blocks []parse.Block
	for i, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			blocks = append(blocks, parse.Block{Text: l, Line: i + 1})
		}
	}
	return parse.Document{Kind: parse.KindText, Blocks: blocks}
}

// keyed is a unit as these tests look at it: its key (the last of its
// heading path) and its text.
type keyed struct{ key, text string }

func keyedUnits(us []Unit) []keyed {
	out := make([]keyed, len(us))
	for i, u := range us {
		if n := len(u.HeadingPath); n > 0 {
			out[i].key = u.HeadingPath[n-1]
		}
		out[i].text = u.Text
	}
	return out
}

// Real FAQs write their questions in many shapes; in every one the
// question is the key of its answer and never a unit's text.
func TestUnitsOfFAQLayouts(t *testing.T) {
	tok := newTestTokenizer(t)
	for _, c := range []struct {
		name string
		doc  parse.Document
		want []keyed
	}{
		{"numbered question lines", textDoc("FAQ\n\n1. How do I reset my password?\nOpen Settings and choose Reset password.\n\n2. Can I pay by invoice?\nNo, invoices are only for business accounts.\n"),
			[]keyed{{"How do I reset my password?", "Open Settings and choose Reset password."}, {"Can I pay by invoice?", "No, invoices are only for business accounts."}}},
		{"lines ending in a question mark", textDoc("Do you ship abroad?\nWe ship to the EU only.\nHow long is the warranty?\nTwo years on all products.\n"),
			[]keyed{{"Do you ship abroad?", "We ship to the EU only."}, {"How long is the warranty?", "Two years on all products."}}},
		{"Q and A labels with numbers, Chinese", textDoc("Q7:会员积分可以转让吗?\nA7:积分不能转让给其他账户。\n问：发票怎么开？\n答：下单时勾选电子发票即可。\n"),
			[]keyed{{"会员积分可以转让吗?", "积分不能转让给其他账户。"}, {"发票怎么开？", "下单时勾选电子发票即可。"}}},
		{"question and answer on one line", textDoc("Q: Can I cancel my order? A: Yes, until it leaves our warehouse.\n"),
			[]keyed{{"Can I cancel my order?", "Yes, until it leaves our warehouse."}}},
		{"Markdown question headings", textDoc("# Returns\n\n## Can I return a sale item?\n\nSale items can be returned within 14 days.\n"),
			[]keyed{{"Can I return a sale item?", "Sale items can be returned within 14 days."}}},
		{"bold docx questions", parse.Document{Kind: parse.KindDOCX, Blocks: []parse.Block{
			{Text: "Payment", Heading: true, Level: 1}, {Text: "Which cards do you accept?", Question: true},
			{Text: "We accept Visa and Mastercard."}, {Text: "Cash on delivery is not accepted."}}},
			[]keyed{{"Which cards do you accept?", "We accept Visa and Mastercard.\nCash on delivery is not accepted."}}},
		{"a sheet's question and answer columns", parse.Document{Kind: parse.KindXLSX, Blocks: []parse.Block{
			{Text: "Question: Where is your shop?; Answer: Our shop is at Torstrasse 1, Berlin.", Sheet: "FAQ"}}},
			[]keyed{{"Where is your shop?", "Our shop is at Torstrasse 1, Berlin."}}},
		{"a table of contents of questions gives nothing", textDoc("Contents\n\n1. Orders\n   1.1. How do I order?\n   1.2. Can I change my order?\n2. Delivery\n   2.1. Where do you ship?\n\n1.1. How do I order?\n\n    Add the items to your cart and check out.\n"),
			[]keyed{{"How do I order?", "Add the items to your cart and check out."}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			units, _ := Units(tok, "doc_faq", c.doc, DefaultOptions())
			assert.Equal(t, c.want, keyedUnits(units))
			for _, u := range units {
				assert.False(t, isQuestionText(u.Text), "a question is never a unit's text: %q", u.Text)
			}
		})
	}
}

// Hard-wrapped text is rebuilt into its paragraphs before sentences are
// cut: a line break ends no sentence, a word split by a hyphen is whole
// again, Chinese lines join without a space, a lead-in keeps its list
// and its command, and short lines of facts stay apart.
func TestUnitsOfHardWrappedText(t *testing.T) {
	tok := newTestTokenizer(t)
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"wrapped prose", "Refunds are paid to the original payment method within five\nbusiness days after we receive the returned item. Exchanges are\nfree of charge.\n",
			[]string{"Refunds are paid to the original payment method within five business days after we receive the returned item.", "Exchanges are free of charge."}},
		{"hyphenation undone, compounds kept", "Our service is available to every customer in the distribu-\ntion area, including non-\nmembers of the club.\n",
			[]string{"Our service is available to every customer in the distribution area, including non-members of the club."}},
		{"Chinese wrapped lines", "退款将在我们收到退回商品后的五个工作日内退回到您原来的付款账户，请您耐心等\n待。\n",
			[]string{"退款将在我们收到退回商品后的五个工作日内退回到您原来的付款账户，请您耐心等待。"}},
		{"a lead-in keeps its list", "We accept these payment methods:\n- Visa\n- PayPal\n",
			[]string{"We accept these payment methods:\n- Visa\n- PayPal"}},
		{"a lead-in keeps its command", "    To download the source package, run\n\n    apt-get source foo\n",
			[]string{"To download the source package, run\napt-get source foo"}},
		{"a Chinese answer wrapped narrower than the English around it", "1. How long do refunds take?\nOnce we receive your parcel, the refund is paid to your original\npayment method within five working days.\n\n2. 保修多久？\n所有产品享受两年保修，保修期从签收之日\n起计算。\n",
			[]string{"Once we receive your parcel, the refund is paid to your original payment method within five working days.", "所有产品享受两年保修，保修期从签收之日起计算。"}},
		{"short fact lines stay apart", "Opening hours\nMonday to Friday 9:00 to 18:00\nSaturday 10:00 to 14:00\n",
			[]string{"Monday to Friday 9:00 to 18:00", "Saturday 10:00 to 14:00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			units, _ := Units(tok, "doc_wrap", textDoc(c.text), DefaultOptions())
			assert.Equal(t, c.want, unitTexts(units))
		})
	}
}

// A document in two languages gives units in each, none mixing them.
func TestUnitsOfATwoLanguageDocument(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := textDoc("退货政策\n商品签收后七天内可以无理由退货。\nReturn policy\nItems can be returned within 7 days of delivery.\n")
	units, _ := Units(tok, "doc_bi", doc, DefaultOptions())
	assert.Equal(t, []string{"商品签收后七天内可以无理由退货。", "Items can be returned within 7 days of delivery."}, unitTexts(units))
	assert.Equal(t, []string{"退货政策"}, units[0].HeadingPath)
	assert.Equal(t, []string{"Return policy"}, units[1].HeadingPath)
}
