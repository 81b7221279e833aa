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
	Name      string     `json:"name"`
	Language  string     `json:"language"`
	Kind      string     `json:"kind"`
	FileName  string     `json:"fileName"`
	Text      string     `json:"text,omitempty"`
	Blocks    []Block    `json:"blocks,omitempty"`
	Pages     [][]string `json:"pages,omitempty"`
	Sheets    []Sheet    `json:"sheets,omitempty"`
	Questions []Question `json:"questions"`
}

// Block is a docx paragraph, or a heading of level 1–3.
type Block struct {
	Heading int    `json:"heading,omitempty"`
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
	// Expect are strings the right answer quotes, all of them.
	Expect []string `json:"expect,omitempty"`
}

// Load reads the datasets of dir (not its subfolders), by name.
func Load(dir string) ([]Dataset, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var out []Dataset
	for _, p := range paths {
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
	switch d.Kind {
	case "text":
		return []byte(d.Text), nil
	case "docx":
		blocks := make([]testfiles.DOCXBlock, len(d.Blocks))
		for i, b := range d.Blocks {
			if b.Heading > 0 {
				blocks[i] = testfiles.DOCXHeading(b.Heading, b.Text)
			} else {
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
