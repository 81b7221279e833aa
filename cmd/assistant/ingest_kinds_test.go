package main

import (
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// jobStates are the index job states of the contract (IndexJobState), in
// the order a job passes through them.
var jobStates = []string{"queued", "parsing", "chunking", "embedding", "indexing", "succeeded", "failed"}

// kindCase is one file of TestIngestKindsThroughTheAPI and what must
// come out of it.
type kindCase struct {
	name     string // subtest name
	file     string // file name as uploaded (URL-encoded when not ASCII)
	stored   string // the name the document gets
	kind     string // DocumentKind
	content  []byte
	product  string // metadata: enum field, filterable
	lang     string // metadata: string field, filterable
	ocr      bool   // an image: needs tesseract
	contains []string
	// absent must stand in no chunk (a web page's navigation and footer).
	absent []string
	// inPaths must all stand in some chunk's heading path.
	inPaths []string
	// where says where chunk text comes from: a chunk containing the key
	// has this page, sheet or heading.
	pages    map[string]int
	sheets   map[string]string
	headings map[string]string
	// query is made of words from the file; it must find the file first.
	query string
	// queryPage is the page the best hit for query is on (PDFs).
	queryPage int
}

// The "done when" of ingestion, through the HTTP API: one file of every
// kind the service takes is uploaded with metadata, indexed, listed as
// chunks that know their page, sheet or heading, and found by search,
// under a metadata filter too.
func TestIngestKindsThroughTheAPI(t *testing.T) {
	start := time.Now()
	e := newEnv(t)
	kb := e.createKB("", "acme", "every kind")["id"].(string)
	e.createField("acme", map[string]any{"key": "product", "type": "enum", "enumValues": []string{"router", "camera", "printer"},
		"scope": "document", "role": "filter"})
	e.createField("acme", map[string]any{"key": "lang", "type": "string", "scope": "document", "role": "filter"})

	_, lookErr := exec.LookPath("tesseract")
	haveOCR := lookErr == nil
	if !haveOCR {
		t.Log("tesseract is not installed: the image jobs must fail with ocr_unavailable")
	}

	cases := []kindCase{
		{
			name: "Chinese PDF", file: url.PathEscape("退款与配送.pdf"), stored: "退款与配送.pdf", kind: "pdf",
			content: testfiles.CJKPDF([][]string{
				{"退款政策", "购买后七天内可无理由退货，运费由买家承担。"},
				{"配送说明", "订单将在两个工作日内发货，偏远地区顺延三天。"},
				{"售后服务", "如有质量问题，请联系客服热线。"},
			}),
			product: "router", lang: "zh",
			contains: []string{"无理由退货", "两个工作日内发货", "请联系客服热线"},
			pages:    map[string]int{"无理由退货": 1, "两个工作日内发货": 2, "偏远地区顺延三天": 2, "质量问题": 3},
			query:    "订单发货要几个工作日", queryPage: 2,
		},
		{
			name: "Latin PDF", file: "camera-guide.pdf", stored: "camera-guide.pdf", kind: "pdf",
			content: testfiles.PDF([][]string{
				{"Camera shipping guide", "Cameras ship from the Rotterdam warehouse within two days."},
				{"Lens cleaning", "Wipe the lens gently with a microfibre cloth before mounting."},
			}),
			product: "camera", lang: "en",
			contains: []string{"Rotterdam warehouse", "microfibre cloth"},
			pages:    map[string]int{"Rotterdam": 1, "microfibre": 2},
			query:    "clean the lens with a microfibre cloth", queryPage: 2,
		},
		{
			name: "GBK text", file: url.PathEscape("保修.txt"), stored: "保修.txt", kind: "text",
			content: testfiles.GBK("保修条款\r\n路由器整机保修一年，电源适配器保修六个月。\r\n人为损坏不在保修范围内。\r\n"),
			product: "router", lang: "zh",
			contains: []string{"路由器整机保修一年", "人为损坏不在保修范围内"},
			query:    "路由器整机保修多久",
		},
		{
			name: "Markdown", file: "printer-faq.md", stored: "printer-faq.md", kind: "text",
			content: []byte("# Printer FAQ\n\n## Paper jams\n\nOpen the rear tray and pull the jammed sheet slowly toward you.\n"),
			product: "printer", lang: "en",
			contains: []string{"pull the jammed sheet slowly"},
			inPaths:  []string{"Printer FAQ", "Paper jams"},
			query:    "printer paper jammed sheet rear tray",
		},
		{
			name: "CSV", file: "firmware.csv", stored: "firmware.csv", kind: "text",
			content: []byte("model,firmware,released\nAX3000,2.4.1,2026-01-15\nAX5400,3.0.2,2026-03-02\n"),
			product: "router", lang: "en",
			contains: []string{"model,firmware,released", "AX5400,3.0.2,2026-03-02"},
			query:    "AX5400 firmware released",
		},
		{
			name: "Word document", file: "returns-handbook.docx", stored: "returns-handbook.docx", kind: "docx",
			content: testfiles.DOCX(
				testfiles.DOCXHeading(1, "Returns handbook"),
				testfiles.DOCXParagraph("Every camera can be returned within thirty days of delivery."),
				testfiles.DOCXHeading(2, "Restocking fees"),
				testfiles.DOCXParagraph("Opened camera bodies carry a restocking fee of fifteen percent."),
				testfiles.DOCXTable([]string{"Item", "Fee"}, []string{"Camera body", "15%"}, []string{"Tripod", "5%"}),
				testfiles.DOCXLink("Print your label on ", "the returns portal", "https://example.com/returns", " before shipping."),
			),
			product: "camera", lang: "en",
			contains: []string{"restocking fee of fifteen percent", "Camera body | 15%", "Print your label on the returns portal before shipping."},
			headings: map[string]string{"within thirty days": "Returns handbook", "restocking fee": "Restocking fees", "Tripod | 5%": "Restocking fees", "returns portal": "Restocking fees"},
			query:    "restocking fee for opened camera bodies",
		},
		{
			name: "Web page", file: "lens-help.html", stored: "lens-help.html", kind: "html",
			content: []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Lens help</title>
<script>var analytics = "tracking pixel";</script></head><body>
<nav><a href="/">Home</a> <a href="/tripods">Tripod catalogue</a></nav>
<main><h1>Lens care</h1><p>Store every lens in its padded pouch
between shoots.</p>
<h2>Can I replace a scratched lens?</h2><p>Scratched lenses are replaced for a flat fee of forty euros.</p>
<table><tr><th>Lens</th><th>Fee</th></tr><tr><td>Zoom lens</td><td>40 EUR</td></tr></table></main>
<footer>Acme Cameras newsletter</footer></body></html>`),
			product: "camera", lang: "en",
			contains: []string{"Store every lens in its padded pouch between shoots.", "flat fee of forty euros", "Lens: Zoom lens; Fee: 40 EUR"},
			absent:   []string{"Tripod catalogue", "tracking pixel", "newsletter", "<"},
			inPaths:  []string{"Lens care", "Can I replace a scratched lens?"},
			headings: map[string]string{"padded pouch": "Lens care", "forty euros": "Can I replace a scratched lens?", "Zoom lens": "Can I replace a scratched lens?"},
			query:    "replace a scratched lens flat fee",
		},
		{
			name: "Excel workbook", file: "stores.xlsx", stored: "stores.xlsx", kind: "xlsx",
			content: testfiles.XLSX(
				testfiles.Sheet{Name: "Stores", Rows: [][]any{{"City", "Address", "Hours"}, {"Lisbon", "Rua Augusta 12", "9-18"}, {"Porto", "Avenida dos Aliados 5", "10-19"}}},
				testfiles.Sheet{Name: "Hotline", Rows: [][]any{{"Country", "Phone"}, {"Portugal", "+351 21 000 0000"}, {"Spain", "+34 91 000 0000"}}},
			),
			product: "printer", lang: "en",
			contains: []string{"City: Lisbon; Address: Rua Augusta 12; Hours: 9-18", "Country: Spain; Phone: +34 91 000 0000"},
			sheets:   map[string]string{"Lisbon": "Stores", "Porto": "Stores", "Portugal": "Hotline", "Spain": "Hotline"},
			query:    "store address Lisbon Rua Augusta",
		},
		{
			name: "PNG image", file: "claim.png", stored: "claim.png", kind: "png", ocr: true,
			content: testfiles.TextPNG("WARRANTY CLAIM FORM", "", "SERIAL NUMBER 4711"),
			product: "router", lang: "en",
			contains: []string{"WARRANTY CLAIM FORM", "SERIAL NUMBER 4711"},
			query:    "warranty claim form serial number",
		},
		{
			name: "JPEG image", file: "voucher.jpg", stored: "voucher.jpg", kind: "jpeg", ocr: true,
			content: testfiles.TextJPEG("GIFT VOUCHER BALANCE", "", "EXPIRES DECEMBER 2027"),
			product: "camera", lang: "en",
			contains: []string{"GIFT VOUCHER BALANCE", "EXPIRES DECEMBER 2027"},
			query:    "gift voucher balance expires",
		},
	}

	// Upload everything first, so the workers index while we watch.
	docs := make([]map[string]any, len(cases))
	jobs := make([]string, len(cases))
	for i, c := range cases {
		r := e.upload(upload{kbID: kb, partName: c.file, content: c.content,
			metadata: `{"product": "` + c.product + `", "lang": "` + c.lang + `"}`})
		require.Equal(t, http.StatusAccepted, r.Status, "%s: %s", c.name, r.Body)
		accepted := r.JSON(t)
		docs[i] = accepted["document"].(map[string]any)
		job := accepted["job"].(map[string]any)
		require.Contains(t, jobStates, job["state"], c.name)
		jobs[i] = job["id"].(string)
	}

	// Then wait for every job, so that each search below sees the whole
	// knowledge base.
	finished := make([]map[string]any, len(cases))
	states := make([][]string, len(cases))
	for i := range cases {
		finished[i], states[i] = e.watchJob("acme", jobs[i])
	}

	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.boundTo(t)
			docID := docs[i]["id"].(string)
			assert.Equal(t, c.stored, docs[i]["name"])
			assert.Equal(t, c.kind, docs[i]["kind"])
			wantMeta := map[string]any{"product": c.product, "lang": c.lang}
			assert.Equal(t, wantMeta, docs[i]["metadata"])

			job := finished[i]
			t.Logf("job states seen: %v", states[i])
			if c.ocr && !haveOCR {
				assert.Equal(t, "failed", job["state"], "%v", job)
				assert.Equal(t, "ocr_unavailable", job["reason"], "%v", job)
				assert.Contains(t, job["detail"], "tesseract")
				t.Log("tesseract is not installed: the image failed with ocr_unavailable, as it must; its text cannot be checked")
				got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + docID, tenant: "acme"}).JSON(t)
				assert.Equal(t, "failed", got["status"])
				return
			}
			require.Equal(t, "succeeded", job["state"], "%v", job)
			progress := job["progress"].(map[string]any)
			assert.Positive(t, progress["total"])
			assert.Equal(t, progress["total"], progress["done"], "progress at the end")
			assert.Nil(t, job["reason"])
			assert.NotNil(t, job["finishedAt"])

			got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + docID, tenant: "acme"}).JSON(t)
			assert.Equal(t, "ready", got["status"])
			assert.Equal(t, progress["total"], got["chunkCount"])
			assert.Equal(t, wantMeta, got["metadata"])

			chunks := e.chunks("acme", docID)
			require.Len(t, chunks, int(progress["total"].(float64)))
			var all []string
			for k, ch := range chunks {
				assert.EqualValues(t, k, ch["index"], "chunks in order")
				meta := ch["metadata"].(map[string]any)
				assert.Equal(t, c.product, meta["product"], "chunk %d carries the document's metadata", k)
				assert.Equal(t, c.lang, meta["lang"], "chunk %d carries the document's metadata", k)
				switch c.kind {
				case "pdf":
					assert.NotNil(t, ch["page"], "a PDF chunk has a page")
				case "xlsx":
					assert.NotNil(t, ch["sheet"], "a workbook chunk has a sheet")
				default:
					assert.Nil(t, ch["page"])
				}
				if c.kind != "xlsx" {
					assert.Nil(t, ch["sheet"])
				}
				all = append(all, ch["text"].(string))
			}
			text := strings.Join(all, "\n")
			for _, want := range c.contains {
				assert.Contains(t, text, want)
			}
			for _, unwanted := range c.absent {
				assert.NotContains(t, text, unwanted)
			}
			var paths []any
			for _, ch := range chunks {
				paths = append(paths, ch["headingPath"].([]any)...)
			}
			for _, want := range c.inPaths {
				assert.Contains(t, paths, want, "headings travel with the text under them")
			}
			checkWhere(t, chunks, "page", c.pages)
			checkWhere(t, chunks, "sheet", c.sheets)
			checkWhere(t, chunks, "heading", c.headings)

			// The query finds the document first, on the right page.
			hits := e.searchHits(map[string]any{"query": c.query, "topK": 3})
			require.NotEmpty(t, hits, c.query)
			best := hits[0]
			assert.Equal(t, docID, best["documentId"], "%q finds %s first; hits: %v", c.query, c.stored, hitNames(hits))
			assert.Equal(t, c.stored, best["documentName"])
			assert.Equal(t, kb, best["kbId"])
			assert.Equal(t, c.product, best["metadata"].(map[string]any)["product"])
			if c.queryPage > 0 {
				assert.EqualValues(t, c.queryPage, best["page"], "%q is on page %d", c.query, c.queryPage)
			}

			// A filter on its own metadata keeps it first; one on another
			// product leaves it out, and leaves only that product.
			hits = e.searchHits(map[string]any{"query": c.query, "topK": 3,
				"filter": map[string]any{"product": c.product, "lang": c.lang}})
			require.NotEmpty(t, hits)
			assert.Equal(t, docID, hits[0]["documentId"])
			for _, h := range hits {
				m := h["metadata"].(map[string]any)
				assert.Equal(t, c.product, m["product"])
				assert.Equal(t, c.lang, m["lang"])
			}
			for _, other := range []string{"router", "camera", "printer"} {
				if other == c.product {
					continue
				}
				hits = e.searchHits(map[string]any{"query": c.query, "topK": 10,
					"filter": map[string]any{"product": map[string]any{"$in": []string{other}}}})
				for _, h := range hits {
					assert.NotEqual(t, docID, h["documentId"], "filtered to %s", other)
					assert.Equal(t, other, h["metadata"].(map[string]any)["product"])
				}
			}
		})
	}

	t.Run("a language filter narrows to that language", func(t *testing.T) {
		e := e.boundTo(t)
		zh := e.searchHits(map[string]any{"query": "保修 退货 发货", "topK": 50, "filter": map[string]any{"lang": "zh"}})
		require.NotEmpty(t, zh)
		for _, h := range zh {
			assert.Equal(t, "zh", h["metadata"].(map[string]any)["lang"], "%v", h["documentName"])
		}
		en := e.searchHits(map[string]any{"query": "warranty camera lens", "topK": 50})
		require.NotEmpty(t, en, "unfiltered, English documents answer")
		assert.Empty(t, e.searchHits(map[string]any{"query": "warranty camera lens", "topK": 50, "filter": map[string]any{"lang": "zh"}}),
			"filtered to Chinese, none of them is found")
	})
	t.Logf("every kind indexed and searched in %s", time.Since(start).Round(time.Millisecond))
}

// checkWhere asserts, for each key, that some chunk's text contains it and
// that every chunk containing it has field (page, sheet or heading) want.
func checkWhere[V comparable](t *testing.T, chunks []map[string]any, field string, where map[string]V) {
	t.Helper()
	for key, want := range where {
		found := false
		for _, ch := range chunks {
			if !strings.Contains(ch["text"].(string), key) {
				continue
			}
			found = true
			var got any = ch[field]
			if n, ok := got.(float64); ok {
				got = int(n)
			}
			assert.Equal(t, want, got, "the chunk with %q has %s %v", key, field, want)
		}
		assert.True(t, found, "no chunk contains %q", key)
	}
}

// boundTo returns a copy of the env that reports to t, so that helpers
// failing inside a subtest stop that subtest, not its parent.
func (e *env) boundTo(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// watchJob polls a job until it has finished and returns it with the
// distinct states it was seen in, checking every one is a documented
// state and that a job tried once moves forward only.
func (e *env) watchJob(tenant, jobID string) (map[string]any, []string) {
	e.t.Helper()
	var seen []string
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/index/jobs/" + jobID, tenant: tenant})
		require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
		job := r.JSON(e.t)
		state, _ := job["state"].(string)
		require.Contains(e.t, jobStates, state, "a documented state")
		if len(seen) == 0 || seen[len(seen)-1] != state {
			seen = append(seen, state)
		}
		if state == "succeeded" || state == "failed" {
			if job["attempts"] == 1.0 {
				order := make([]int, len(seen))
				for i, s := range seen {
					order[i] = slices.Index(jobStates, s)
				}
				assert.True(e.t, slices.IsSorted(order), "a job tried once only moves forward: %v", seen)
			}
			return job, seen
		}
		require.True(e.t, time.Now().Before(deadline), "job %s still %s after 60s", jobID, state)
		time.Sleep(20 * time.Millisecond)
	}
}

// searchHits runs kb-search in acme and returns its hits.
func (e *env) searchHits(body map[string]any) []map[string]any {
	e.t.Helper()
	r := e.search("acme", body)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	var hits []map[string]any
	for _, h := range r.JSON(e.t)["items"].([]any) {
		hits = append(hits, h.(map[string]any))
	}
	return hits
}

func hitNames(hits []map[string]any) []string {
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h["documentName"].(string)
	}
	return names
}
