package parse

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxJSONLDDepth bounds how deep faqPairs looks into a JSON-LD value for
// FAQPage objects (they sit at the top, in an array, or in @graph).
const maxJSONLDDepth = 6

// visibleQuestionSlack is how many letters or digits a block the page
// shows may have before a JSON-LD question's own ("2.1." numbering, a
// "Q:") and still be that question.
const visibleQuestionSlack = 8

// faqScript is a schema.org FAQPage JSON-LD script of the page.
type faqScript struct {
	node  *html.Node
	lang  string
	pairs []faqPair
}

// faqPair is one Question of an FAQPage; answer may be HTML.
type faqPair struct {
	question, answer string
}

// isJSONLD reports whether n is a <script type="application/ld+json">.
func isJSONLD(n *html.Node) bool {
	if n.DataAtom != atom.Script || n.Namespace != "" {
		return false
	}
	for _, a := range n.Attr {
		if a.Key == "type" {
			mt, _, _ := strings.Cut(a.Val, ";")
			return strings.EqualFold(strings.TrimSpace(mt), "application/ld+json")
		}
	}
	return false
}

// faqPairs reads the questions of the FAQPage objects in a JSON-LD
// script; none when it holds no FAQPage or is not valid JSON.
func faqPairs(n *html.Node) []faqPair {
	var src strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			src.WriteString(c.Data)
		}
	}
	var v any
	if err := json.Unmarshal([]byte(src.String()), &v); err != nil {
		return nil
	}
	var pairs []faqPair
	collectFAQ(v, 0, &pairs)
	return pairs
}

// collectFAQ adds the questions of the FAQPage objects in v.
func collectFAQ(v any, depth int, pairs *[]faqPair) {
	if depth > maxJSONLDDepth {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			collectFAQ(e, depth+1, pairs)
		}
	case map[string]any:
		if hasType(t, "FAQPage") {
			for _, q := range asList(t["mainEntity"]) {
				if p, ok := faqQuestion(q); ok {
					*pairs = append(*pairs, p)
				}
			}
			return
		}
		collectFAQ(t["@graph"], depth+1, pairs)
	}
}

// faqQuestion reads a Question: its name (or text) and the text of its
// first accepted answer that has one.
func faqQuestion(v any) (faqPair, bool) {
	q, ok := v.(map[string]any)
	if !ok || !hasType(q, "Question") {
		return faqPair{}, false
	}
	name, _ := q["name"].(string)
	if strings.TrimSpace(name) == "" {
		name, _ = q["text"].(string)
	}
	var answer string
	for _, a := range asList(q["acceptedAnswer"]) {
		if m, ok := a.(map[string]any); ok {
			if s, ok := m["text"].(string); ok && strings.TrimSpace(s) != "" {
				answer = s
				break
			}
		}
	}
	name = collapseSpace(html.UnescapeString(name))
	return faqPair{question: name, answer: answer}, name != "" && answer != ""
}

// hasType reports whether a JSON-LD object's @type is, or lists, typ.
func hasType(m map[string]any, typ string) bool {
	for _, t := range asList(m["@type"]) {
		if s, ok := t.(string); ok && (s == typ || s == "schema:"+typ || strings.HasSuffix(s, "schema.org/"+typ)) {
			return true
		}
	}
	return false
}

// asList is v as a list: itself if it is one, else a list of it.
func asList(v any) []any {
	switch t := v.(type) {
	case nil:
		return nil
	case []any:
		return t
	}
	return []any{v}
}

// faqBlocks renders each script's questions as a Question block followed
// by the answer's blocks (its HTML read like a page, without main-content
// selection mattering: an answer has no <main>), in the script's
// language. A question the page already shows (a visible block that is
// the question, give or take numbering) is left out, as is one an
// earlier script asked.
func faqBlocks(ctx context.Context, scripts []*faqScript, visible []Block) ([][]Block, error) {
	out := make([][]Block, len(scripts))
	if len(scripts) == 0 {
		return out, nil
	}
	shown := make([]string, 0, len(visible))
	for _, b := range visible {
		shown = append(shown, textKey(b.Text))
	}
	asked := map[string]bool{}
	for i, s := range scripts {
		for _, p := range s.pairs {
			key := textKey(p.question)
			if key == "" || asked[key] || isShown(shown, key) {
				continue
			}
			asked[key] = true
			root, err := parseHTMLTree(ctx, p.answer)
			if err != nil {
				return nil, err
			}
			answer, err := htmlBlocks(ctx, root, false)
			if err != nil {
				return nil, err
			}
			if len(answer) == 0 {
				continue
			}
			out[i] = append(out[i], Block{Text: p.question, Question: true, Lang: s.lang})
			for _, b := range answer {
				if b.Lang == "" {
					b.Lang = s.lang
				}
				out[i] = append(out[i], b)
			}
		}
	}
	return out, nil
}

// isShown reports whether some shown key is question key, with at most
// visibleQuestionSlack characters before it.
func isShown(shown []string, key string) bool {
	for _, s := range shown {
		if strings.HasSuffix(s, key) && utf8.RuneCountInString(s)-utf8.RuneCountInString(key) <= visibleQuestionSlack {
			return true
		}
	}
	return false
}

// textKey normalises text for comparison: its letters and digits, lower-cased.
func textKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
