package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// FuzzUnits feeds the structure readers and the unit builder any text, as
// a text file, as PDF page lines and as paragraphs: they never panic, and
// every unit has text and is valid UTF-8, and no join mark of the text
// reader is left in one. The seeds are the layouts the
// readers look for.
func FuzzUnits(f *testing.F) {
	for _, s := range []string{
		"1. How do I pay?\nBy card.\n\n2. Can I return it?\nYes.",
		"Q7:会员积分可以转让吗?\nA7:不能。\n问：发票？\n答：可以。",
		"Q: Can I cancel? A: Yes.",
		"# Returns\n\n## Can I return a sale item?\n\nWithin 14 days.",
		"Contents\n\n1. Orders\n   1.1. How?\n   1.2. Why?\n",
		"To download, run\n\n    apt-get source foo\n",
		"non-\nmembers distribu-\ntion https:\n//example.com/\npath",
		"所有产品享受两年保修，保修期从签收之日\n起计算。\n退货政策\nReturn policy\nItems.",
		"?\n？\n-\n*\n1.\nQ:\nA:\n\u00a0\u00a0x\n\x1f",
	} {
		f.Add(s)
	}
	tok := newTestTokenizer(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			s = strings.ToValidUTF8(s, "?")
		}
		var lines, page, paras []parse.Block
		for i, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			lines = append(lines, parse.Block{Text: l, Line: i + 1})
			page = append(page, parse.Block{Text: l, Page: 1 + i%3})
			paras = append(paras, parse.Block{Text: l, Heading: i%5 == 0, Level: i % 4, Question: i%7 == 1, ListItem: i%3 == 2})
		}
		for _, doc := range []parse.Document{
			{Kind: parse.KindText, Blocks: lines}, {Kind: parse.KindPDF, Blocks: page}, {Kind: parse.KindHTML, Blocks: paras},
		} {
			units, _ := Units(tok, "doc_fuzz", doc, DefaultOptions())
			for _, u := range units {
				if strings.TrimSpace(u.Text) == "" || !utf8.ValidString(u.Text) || doc.Kind == parse.KindText && strings.Contains(u.Text, "\x1f") {
					t.Fatalf("%s: bad unit %q", doc.Kind, u.Text)
				}
			}
		}
	})
}
