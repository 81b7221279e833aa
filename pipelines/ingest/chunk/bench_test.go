package chunk

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// BenchmarkSplitPDF200Pages chunks a 200-page PDF of about 400 words a
// page with the default options. The ingestion pipeline as a whole must do
// at least 200 pages/s on 2 cores; chunking should be a small part of that.
func BenchmarkSplitPDF200Pages(b *testing.B) {
	tok := newTestTokenizer(b)
	rng := rand.New(rand.NewSource(1))
	const pages = 200
	doc := parse.Document{Kind: parse.KindPDF}
	for p := 1; p <= pages; p++ {
		for range 10 {
			doc.Blocks = append(doc.Blocks, parse.Block{Text: sentence(rng, 40), Page: p})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	chunks := 0
	for b.Loop() {
		chunks = len(Split(tok, "doc", doc, DefaultOptions()))
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(chunks), "chunks/op")
}

// BenchmarkSplitDOCX2000Paragraphs chunks a docx of 2000 paragraphs of 10
// to 90 words, with a heading every 25 paragraphs, with the default options.
func BenchmarkSplitDOCX2000Paragraphs(b *testing.B) {
	tok := newTestTokenizer(b)
	rng := rand.New(rand.NewSource(1))
	const paragraphs = 2000
	doc := parse.Document{Kind: parse.KindDOCX}
	for p := range paragraphs {
		if p%25 == 0 {
			doc.Blocks = append(doc.Blocks, parse.Block{Text: fmt.Sprintf("Section %d", p/25), Heading: true, Level: 1})
		}
		doc.Blocks = append(doc.Blocks, parse.Block{Text: sentence(rng, 10+rng.Intn(80))})
	}
	b.ReportAllocs()
	b.ResetTimer()
	chunks := 0
	for b.Loop() {
		chunks = len(Split(tok, "doc", doc, DefaultOptions()))
	}
	b.ReportMetric(float64(paragraphs*b.N)/b.Elapsed().Seconds(), "paragraphs/s")
	b.ReportMetric(float64(chunks), "chunks/op")
}

// BenchmarkCount counts the tokens of about 100 KB of mixed English and
// Chinese support text.
func BenchmarkCount(b *testing.B) {
	tok := newTestTokenizer(b)
	rng := rand.New(rand.NewSource(1))
	text := sentence(rng, 15000)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		tok.Count(text)
	}
}

// BenchmarkUnitsPDF100Pages cuts a 100-page text PDF into units and
// passages, as ingestion does: its lines wrapped at the page's width, a
// short heading now and then. Issue 22 bounds the structure reader's added
// cost: within 10% of what cutting took before it.
func BenchmarkUnitsPDF100Pages(b *testing.B) {
	tok := newTestTokenizer(b)
	rng := rand.New(rand.NewSource(1))
	const pages = 100
	doc := parse.Document{Kind: parse.KindPDF}
	for p := 1; p <= pages; p++ {
		doc.Blocks = append(doc.Blocks, parse.Block{Text: fmt.Sprintf("Section %d", p), Page: p})
		for range 10 {
			words := sentence(rng, 40)
			for len(words) > 70 {
				cut := 70
				for cut > 0 && words[cut] != ' ' {
					cut--
				}
				doc.Blocks = append(doc.Blocks, parse.Block{Text: words[:cut], Page: p})
				words = words[cut+1:]
			}
			doc.Blocks = append(doc.Blocks, parse.Block{Text: words + ".", Page: p})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	units := 0
	for b.Loop() {
		us, _ := Units(tok, "doc", doc, DefaultOptions())
		units = len(us)
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(units), "units/op")
}
