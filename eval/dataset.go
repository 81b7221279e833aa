package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// Question kinds: how a covered question is worded against the text that
// answers it, and why an uncovered one is not answered.
const (
	KindDirect     = "direct"     // shares the key content words
	KindParaphrase = "paraphrase" // shares one or two content words
	KindDisjoint   = "disjoint"   // shares no content word
	KindUncovered  = "uncovered"  // another topic
	KindNearMiss   = "near_miss"  // the same topic, not answered by the text
)

// Dataset is one document and the questions asked of it.
type Dataset struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Kind     string `json:"kind"`
	// Layout is how the document's questions and answers are laid out
	// (e.g. "q_a_lines", "bold_questions_docx"); empty reads as Kind.
	Layout string `json:"layout,omitempty"`
	// Source, for a real document, names the file of a pinned Debian
	// package (realdocs/packages.json) that is uploaded as it ships; the
	// file is fetched at test time and never committed.
	Source    *Source    `json:"source,omitempty"`
	FileName  string     `json:"fileName"`
	Text      string     `json:"text,omitempty"`
	Blocks    []Block    `json:"blocks,omitempty"`
	Pages     [][]string `json:"pages,omitempty"`
	Sheets    []Sheet    `json:"sheets,omitempty"`
	Questions []Question `json:"questions"`

	// data is a real document's fetched file (see Source).
	data []byte
}

// Source is a file of a Debian package: the package's name in the pins of
// realdocs/packages.json and the path inside it (a ".gz" one is gunzipped).
type Source struct {
	Package string `json:"package"`
	Path    string `json:"path"`
}

// LayoutName is the dataset's layout, its kind when it names none.
func (d Dataset) LayoutName() string {
	if d.Layout != "" {
		return d.Layout
	}
	return d.Kind
}

// Block is a docx paragraph, or a heading of level 1–3; a bold paragraph
// is one run in bold (Word's <w:b/>), the way many FAQs set a question.
type Block struct {
	Heading int    `json:"heading,omitempty"`
	Bold    bool   `json:"bold,omitempty"`
	Text    string `json:"text"`
}

// Sheet is an xlsx sheet whose first row is the header.
type Sheet struct {
	Name string     `json:"name"`
	Rows [][]string `json:"rows"`
}

// Question is a customer question with its label.
type Question struct {
	Q       string `json:"q"`
	Covered bool   `json:"covered"`
	Kind    string `json:"kind"`
	// AnswerKind is the kind of answer asked for (where, when, who, which,
	// contact, how, yesno, duration, price, what, why, other); "" when the
	// dataset does not say.
	AnswerKind string `json:"answerKind,omitempty"`
	// Expect are strings the right answer quotes, all of them.
	Expect []string `json:"expect,omitempty"`
}

// Load reads the datasets of dir (not its subfolders), by name, but for
// the files whose names start with one of skip.
func Load(dir string, skip ...string) ([]Dataset, error) {
	return LoadGlob(filepath.Join(dir, "*.json"), skip...)
}

// LoadGlob reads the datasets of the files pattern matches, by name, but
// for those whose names start with one of skip.
func LoadGlob(pattern string, skip ...string) ([]Dataset, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []Dataset
	for _, p := range paths {
		if slices.ContainsFunc(skip, func(prefix string) bool { return strings.HasPrefix(filepath.Base(p), prefix) }) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var d Dataset
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if err := d.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func (d Dataset) check() error {
	if d.Source != nil && (d.Source.Package == "" || d.Source.Path == "") {
		return fmt.Errorf("a source needs a package and a path")
	}
	for _, q := range d.Questions {
		switch {
		case q.Covered && len(q.Expect) == 0:
			return fmt.Errorf("covered question %q expects nothing", q.Q)
		case q.Covered != (q.Kind == KindDirect || q.Kind == KindParaphrase || q.Kind == KindDisjoint):
			return fmt.Errorf("question %q: kind %q does not fit covered=%v", q.Q, q.Kind, q.Covered)
		}
	}
	return nil
}

// File returns the dataset's document as the file a customer uploads: a
// UTF-8 text, or a real docx, PDF or xlsx built from its blocks, pages or
// sheets.
func (d Dataset) File() ([]byte, error) {
	if d.Source != nil {
		if d.data == nil {
			return nil, fmt.Errorf("%s: the document %s of %s was not fetched", d.Name, d.Source.Path, d.Source.Package)
		}
		return d.data, nil
	}
	switch d.Kind {
	case "text", "md", "html":
		return []byte(d.Text), nil
	case "docx":
		blocks := make([]testfiles.DOCXBlock, len(d.Blocks))
		for i, b := range d.Blocks {
			switch {
			case b.Heading > 0:
				blocks[i] = testfiles.DOCXHeading(b.Heading, b.Text)
			case b.Bold:
				blocks[i] = testfiles.DOCXBoldParagraph(b.Text)
			default:
				blocks[i] = testfiles.DOCXParagraph(b.Text)
			}
		}
		return testfiles.DOCX(blocks...), nil
	case "pdf":
		if d.Language == "zh" {
			return testfiles.CJKPDF(d.Pages), nil // a font with the characters
		}
		return testfiles.PDF(d.Pages), nil
	case "xlsx":
		sheets := make([]testfiles.Sheet, len(d.Sheets))
		for i, s := range d.Sheets {
			rows := make([][]any, len(s.Rows))
			for r, row := range s.Rows {
				for _, cell := range row {
					rows[r] = append(rows[r], cell)
				}
			}
			sheets[i] = testfiles.Sheet{Name: s.Name, Rows: rows}
		}
		return testfiles.XLSX(sheets...), nil
	}
	return nil, fmt.Errorf("unknown kind %q", d.Kind)
}

// answers reports whether text holds every expected string (case and
// width folded).
func (q Question) answeredBy(text string) bool {
	t := fold(text)
	for _, e := range q.Expect {
		if !strings.Contains(t, fold(e)) {
			return false
		}
	}
	return true
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
