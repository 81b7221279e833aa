package main

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
)

// Retrieval on real ingested documents, observed through the RAG lab: each
// document is one short passage with distinct metadata, stored as
// answer-sized units (its lines, or the sentences of a line of prose) that
// all point to that passage, and every run names its strategy, so what is
// kept and why depends on nothing else.

// retrievalDocs are the acme documents: name → text and metadata. The
// shared words "customer support guide" make every one a (weak) match of
// that query, so the filters alone decide which are found. "notes.txt"
// has no metadata at all (a missing field passes $ne and $nin and fails
// the rest); it is long and mentions the rare code qx7731 once, so its
// vector score for that code is low while BM25 finds it at once.
var retrievalDocs = []struct{ name, text, meta string }{
	{"router-home.txt", "Customer support guide for the home router. Restart the router and wait for the wifi light to turn green before you reconnect your devices.",
		`{"product": "router", "lang": "en", "price": 49, "published": "2025-01-15", "tags": ["wifi", "home"]}`},
	{"router-mesh.txt", "Customer support guide for the mesh router. Pair each mesh satellite within two metres of the base station, then move it to its final place.",
		`{"product": "router", "lang": "zh", "price": 99, "published": "2025-06-01", "tags": ["wifi", "mesh"]}`},
	{"camera-indoor.txt", "Customer support guide for the indoor camera. Motion alerts reach the phone app within seconds; night vision switches on automatically.",
		`{"product": "camera", "lang": "en", "price": 120, "published": "2024-11-30", "tags": ["security", "home"]}`},
	{"printer-office.txt", "Customer support guide for the office printer. Replace the toner cartridge when the warning lamp blinks, and print a test page afterwards.",
		`{"product": "printer", "lang": "de", "price": 250, "published": "2026-02-01", "tags": ["office"]}`},
	{"camera-outdoor.txt", "Customer support guide for the outdoor camera. The weatherproof housing survives heavy rain; mount it under the eaves for the best view.",
		`{"product": "camera", "lang": "zh", "price": 75.5, "published": "2025-06-01T12:00:00Z", "tags": ["security", "outdoor"]}`},
	{"notes.txt", "Customer support guide, general release notes. The spring release brings a redesigned settings page, faster start-up on older phones, " +
		"clearer error messages when a device goes offline, a dark theme that follows the system setting, better translations for Spanish, " +
		"Portuguese and Japanese, larger touch targets in the device list, an export of the event history as a spreadsheet, and a fix for the " +
		"pairing problem reported by owners of the qx7731 adapter. Schedules now survive a power cut, notifications can be muted per room, " +
		"and the help centre opens inside the app instead of the browser.", ""},
}

// guideWords is the sentence every acme document opens with, in some form.
const guideWords = "Customer support guide"

// retrievalFixture is acme with retrievalDocs indexed in one knowledge
// base, and globex with one document of its own.
type retrievalFixture struct {
	e   *env
	kb  string
	ids map[string]string // document name → id
	// units is how many chunks (units) each document was stored as.
	units map[string]int
	// tokens is the cl100k_base tokens of each document's one passage
	// (its whole text): what a document costs the evidence budget, once,
	// however many of its units are kept.
	tokens map[string]int
	globex string // globex's document id
}

func newRetrievalFixture(t *testing.T) *retrievalFixture {
	e := newEnv(t)
	tok, err := chunk.NewTokenizer()
	require.NoError(t, err)
	f := &retrievalFixture{e: e, ids: map[string]string{}, units: map[string]int{}, tokens: map[string]int{}}
	for _, fd := range []map[string]any{
		{"key": "product", "type": "enum", "enumValues": []string{"router", "camera", "printer"}},
		{"key": "lang", "type": "string"},
		{"key": "price", "type": "number"},
		{"key": "published", "type": "date"},
		{"key": "tags", "type": "string_array"},
	} {
		fd["scope"], fd["role"] = "document", "filter"
		e.createField("acme", fd)
	}
	f.kb = e.createKB("", "acme", "products")["id"].(string)
	for _, d := range retrievalDocs {
		doc, job := e.uploadAndWait(upload{kbID: f.kb, partName: d.name, content: []byte(d.text), metadata: d.meta})
		require.Equal(t, "succeeded", job["state"], "%s: %v", d.name, job)
		id := doc["id"].(string)
		chunks := e.chunks("acme", id)
		require.NotEmpty(t, chunks, "%s has units", d.name)
		var joined strings.Builder
		for _, c := range chunks {
			text := c["text"].(string)
			assert.Contains(t, d.text, text, "%s: a unit is a span of its document", d.name)
			assert.Positive(t, c["tokens"], "%s: %q", d.name, text)
			joined.WriteString(text)
		}
		assert.Equal(t, withoutSpace(d.text), withoutSpace(joined.String()), "%s: its units, in order, are the whole text", d.name)
		f.ids[d.name] = id
		f.units[d.name] = len(chunks)
		f.tokens[d.name] = tok.Count(d.text)
	}
	t.Logf("units per document: %v", f.units)
	gkb := e.createKB("", "globex", "secrets")["id"].(string)
	doc, job := e.uploadAndWait(upload{tenant: "globex", kbID: gkb, partName: "globex.txt",
		content: []byte("Customer support guide of globex: the qx7731 adapter and the home router wifi are covered by globex only.")})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	f.globex = doc["id"].(string)
	return f
}

// labStrategy is a strategy that keeps everything the indexes find and
// never hands off, with overrides.
func labStrategy(overrides map[string]any) map[string]any {
	s := strategyBody(map[string]any{
		"mode": "vector", "topK": 20, "scoreThreshold": 0, "lexicalWeight": 0.3, "maxEvidenceTokens": 32000,
		"minHits": 0, "minTopScore": 0, "minEvidenceTokens": 0, "transferConfidenceThreshold": 0, "minAnswerability": 0,
	})
	for k, v := range overrides {
		s[k] = v
	}
	return s
}

// labCandidate is one candidate of a lab run.
type labCandidate struct {
	ChunkID      string   `json:"chunkId"`
	DocumentID   string   `json:"documentId"`
	DocumentName string   `json:"documentName"`
	Text         string   `json:"text"`
	VectorScore  *float64 `json:"vectorScore"`
	LexicalScore *float64 `json:"lexicalScore"`
	// FusedScore is the candidate's relevance in [0, 1].
	FusedScore float64 `json:"fusedScore"`
	Coverage   float64 `json:"coverage"`
	Kept       bool    `json:"kept"`
	Dropped    *string `json:"dropped"`
}

type labTransfer struct {
	Code              string  `json:"code"`
	Hits              int     `json:"hits"`
	MinHits           int     `json:"minHits"`
	TopScore          float64 `json:"topScore"`
	MinTopScore       float64 `json:"minTopScore"`
	Answerability     float64 `json:"answerability"`
	MinAnswerability  float64 `json:"minAnswerability"`
	EvidenceTokens    int     `json:"evidenceTokens"`
	MinEvidenceTokens int     `json:"minEvidenceTokens"`
	Confidence        float64 `json:"confidence"`
	Threshold         float64 `json:"threshold"`
}

// labResult is the part of a lab run these tests read.
type labResult struct {
	EmbeddingModel string         `json:"embeddingModel"`
	Candidates     []labCandidate `json:"candidates"`
	EvidenceTokens int            `json:"evidenceTokens"`
	Confidence     float64        `json:"confidence"`
	ShouldTransfer bool           `json:"shouldTransfer"`
	TransferReason *labTransfer   `json:"transferReason"`
	Citations      []struct {
		ChunkID string  `json:"chunkId"`
		Score   float64 `json:"score"`
	} `json:"citations"`
	Strategy map[string]any `json:"strategy"`
}

func (r labResult) kept() []labCandidate {
	var out []labCandidate
	for _, c := range r.Candidates {
		if c.Kept {
			out = append(out, c)
		}
	}
	return out
}

// keptNames and foundNames are the documents (each once) of the kept
// candidates and of all candidates.
func (r labResult) keptNames() []string  { return names(r.kept()) }
func (r labResult) foundNames() []string { return names(r.Candidates) }

// lexicalNames are the documents (each once) the lexical index found.
func (r labResult) lexicalNames() []string {
	var hits []labCandidate
	for _, c := range r.Candidates {
		if c.LexicalScore != nil {
			hits = append(hits, c)
		}
	}
	return names(hits)
}

// best is the most relevant candidate of a document (candidates come most
// relevant first), nil when none is.
func (r labResult) best(name string) *labCandidate {
	for i := range r.Candidates {
		if r.Candidates[i].DocumentName == name {
			return &r.Candidates[i]
		}
	}
	return nil
}

// holding is the first candidate whose text holds s, nil when none does.
func (r labResult) holding(s string) *labCandidate {
	for i := range r.Candidates {
		if strings.Contains(r.Candidates[i].Text, s) {
			return &r.Candidates[i]
		}
	}
	return nil
}

// rank is the position of a document's best candidate.
func (r labResult) rank(t *testing.T, name string) int {
	t.Helper()
	for i, c := range r.Candidates {
		if c.DocumentName == name {
			return i
		}
	}
	t.Fatalf("%s not found", name)
	return -1
}

// topScore is the best kept relevance (what the decision is judged on).
func (r labResult) topScore() float64 {
	top := 0.0
	for _, c := range r.kept() {
		top = max(top, c.FusedScore)
	}
	return top
}

// names are the candidates' documents, each once, sorted.
func names(cs []labCandidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.DocumentName)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func dropped(c labCandidate) string {
	if c.Dropped == nil {
		return ""
	}
	return *c.Dropped
}

// run posts one lab run (strategy overrides on labStrategy) and decodes it.
func (f *retrievalFixture) run(t *testing.T, tenant string, body map[string]any) labResult {
	t.Helper()
	r := f.e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: tenant, body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var out labResult
	require.NoError(t, json.Unmarshal(r.Body, &out))
	for _, c := range out.Candidates {
		if c.DocumentID != "" {
			require.Equal(t, c.DocumentID, f.idOf(c.DocumentName, tenant), "candidate %s names its document", c.ChunkID)
		}
		assert.GreaterOrEqual(t, c.FusedScore, 0.0, "a relevance is in [0, 1]")
		assert.LessOrEqual(t, c.FusedScore, 1.0, "a relevance is in [0, 1]")
	}
	return out
}

func (f *retrievalFixture) idOf(name, tenant string) string {
	if tenant == "globex" && name == "globex.txt" {
		return f.globex
	}
	if tenant == "acme" {
		return f.ids[name]
	}
	return "not " + tenant + "'s: " + name
}

func (f *retrievalFixture) query(t *testing.T, query string, filter map[string]any, strategy map[string]any) labResult {
	t.Helper()
	body := map[string]any{"query": query, "strategy": labStrategy(strategy)}
	if filter != nil {
		body["filter"] = filter
	}
	return f.run(t, "acme", body)
}

// totalUnits is how many chunks acme has.
func (f *retrievalFixture) totalUnits() int {
	n := 0
	for _, u := range f.units {
		n += u
	}
	return n
}

func TestRetrievalThroughTheRagLab(t *testing.T) {
	f := newRetrievalFixture(t)
	all := []string{}
	for _, d := range retrievalDocs {
		all = append(all, d.name)
	}
	sort.Strings(all)

	t.Run("every document is found when nothing filters", func(t *testing.T) {
		const q = "customer support guide"
		for _, mode := range []string{"vector", "hybrid"} {
			out := f.query(t, q, nil, map[string]any{"mode": mode})
			assert.Equal(t, domain.OfflineEmbeddingModel, out.EmbeddingModel, "the harness embeds offline")
			assert.Equal(t, all, out.keptNames(), mode)
			assertRelevance(t, out, q, mode, 0.3)
			// Each document's unit holding the words is found by its
			// vector (and in hybrid mode by its words too) and kept.
			guides := map[string]int{}
			for _, c := range out.Candidates {
				if mode == "vector" {
					assert.Nil(t, c.LexicalScore, "vector mode asks no lexical index")
				}
				if !strings.Contains(c.Text, guideWords) {
					continue
				}
				guides[c.DocumentName]++
				require.NotNil(t, c.VectorScore, "%s: %s found by its vector", mode, c.DocumentName)
				assert.Greater(t, *c.VectorScore, 0.02, "%s: %s scores above the calibration's floor", mode, c.DocumentName)
				assert.Equal(t, 1.0, c.Coverage, "%s: %s holds every word of the question", mode, c.DocumentName)
				assert.True(t, c.Kept, "%s: %s", mode, c.DocumentName)
				if mode == "hybrid" {
					assert.NotNil(t, c.LexicalScore, "%s: the unit holds the words", c.DocumentName)
				}
			}
			for _, name := range all {
				assert.Equal(t, 1, guides[name], "%s: %s has one unit with the words among the candidates", mode, name)
			}
		}
	})

	t.Run("filters keep exactly the matching documents, in both indexes", func(t *testing.T) {
		cases := []struct {
			name   string
			filter map[string]any
			want   []string
		}{
			// enum
			{"enum equality", map[string]any{"product": "router"}, []string{"router-home.txt", "router-mesh.txt"}},
			{"enum $eq", map[string]any{"product": map[string]any{"$eq": "camera"}}, []string{"camera-indoor.txt", "camera-outdoor.txt"}},
			{"enum $ne passes a missing field", map[string]any{"product": map[string]any{"$ne": "camera"}},
				[]string{"notes.txt", "printer-office.txt", "router-home.txt", "router-mesh.txt"}},
			{"enum $in", map[string]any{"product": map[string]any{"$in": []any{"router", "printer"}}},
				[]string{"printer-office.txt", "router-home.txt", "router-mesh.txt"}},
			{"enum $nin passes a missing field", map[string]any{"product": map[string]any{"$nin": []any{"router", "printer"}}},
				[]string{"camera-indoor.txt", "camera-outdoor.txt", "notes.txt"}},
			// string
			{"string $eq", map[string]any{"lang": map[string]any{"$eq": "zh"}}, []string{"camera-outdoor.txt", "router-mesh.txt"}},
			{"string $in", map[string]any{"lang": map[string]any{"$in": []any{"en", "de"}}},
				[]string{"camera-indoor.txt", "printer-office.txt", "router-home.txt"}},
			{"string $in with no such value", map[string]any{"lang": map[string]any{"$in": []any{"fr"}}}, []string{}},
			// number
			{"number $eq", map[string]any{"price": map[string]any{"$eq": 99}}, []string{"router-mesh.txt"}},
			{"number equality with a fraction", map[string]any{"price": 75.5}, []string{"camera-outdoor.txt"}},
			{"number $ne", map[string]any{"price": map[string]any{"$ne": 99}},
				[]string{"camera-indoor.txt", "camera-outdoor.txt", "notes.txt", "printer-office.txt", "router-home.txt"}},
			{"number $in", map[string]any{"price": map[string]any{"$in": []any{49, 250}}}, []string{"printer-office.txt", "router-home.txt"}},
			{"number $nin", map[string]any{"price": map[string]any{"$nin": []any{49, 250}}},
				[]string{"camera-indoor.txt", "camera-outdoor.txt", "notes.txt", "router-mesh.txt"}},
			{"number $gt excludes the bound", map[string]any{"price": map[string]any{"$gt": 99}}, []string{"camera-indoor.txt", "printer-office.txt"}},
			{"number $gte includes the bound", map[string]any{"price": map[string]any{"$gte": 99}},
				[]string{"camera-indoor.txt", "printer-office.txt", "router-mesh.txt"}},
			{"number $lt excludes the bound", map[string]any{"price": map[string]any{"$lt": 75.5}}, []string{"router-home.txt"}},
			{"number $lte includes the bound", map[string]any{"price": map[string]any{"$lte": 75.5}}, []string{"camera-outdoor.txt", "router-home.txt"}},
			{"number range of two operators", map[string]any{"price": map[string]any{"$gte": 49, "$lte": 99}},
				[]string{"camera-outdoor.txt", "router-home.txt", "router-mesh.txt"}},
			// date: 2025-06-01 is midnight UTC; camera-outdoor is noon that day
			{"date equality is to the instant", map[string]any{"published": "2025-06-01"}, []string{"router-mesh.txt"}},
			{"date $eq with a date-time", map[string]any{"published": map[string]any{"$eq": "2025-06-01T14:00:00+02:00"}}, []string{"camera-outdoor.txt"}},
			{"date $ne", map[string]any{"published": map[string]any{"$ne": "2025-06-01"}},
				[]string{"camera-indoor.txt", "camera-outdoor.txt", "notes.txt", "printer-office.txt", "router-home.txt"}},
			{"date $gt excludes the bound", map[string]any{"published": map[string]any{"$gt": "2025-06-01"}},
				[]string{"camera-outdoor.txt", "printer-office.txt"}},
			{"date $gte includes the bound", map[string]any{"published": map[string]any{"$gte": "2025-06-01"}},
				[]string{"camera-outdoor.txt", "printer-office.txt", "router-mesh.txt"}},
			{"date $lt excludes the bound", map[string]any{"published": map[string]any{"$lt": "2025-06-01"}},
				[]string{"camera-indoor.txt", "router-home.txt"}},
			{"date $lte includes the bound", map[string]any{"published": map[string]any{"$lte": "2025-06-01"}},
				[]string{"camera-indoor.txt", "router-home.txt", "router-mesh.txt"}},
			{"date range within one day", map[string]any{"published": map[string]any{"$gt": "2025-06-01", "$lt": "2025-06-02"}},
				[]string{"camera-outdoor.txt"}},
			// string array: match-any
			{"string array equality matches any element", map[string]any{"tags": "home"}, []string{"camera-indoor.txt", "router-home.txt"}},
			{"string array $in matches any element", map[string]any{"tags": map[string]any{"$in": []any{"mesh", "outdoor"}}},
				[]string{"camera-outdoor.txt", "router-mesh.txt"}},
			{"string array $ne excludes any element", map[string]any{"tags": map[string]any{"$ne": "wifi"}},
				[]string{"camera-indoor.txt", "camera-outdoor.txt", "notes.txt", "printer-office.txt"}},
			{"string array $nin excludes any element", map[string]any{"tags": map[string]any{"$nin": []any{"home", "security"}}},
				[]string{"notes.txt", "printer-office.txt", "router-mesh.txt"}},
			// combinations
			{"keys combine by and", map[string]any{"product": "camera", "lang": "en"}, []string{"camera-indoor.txt"}},
			{"$and", map[string]any{"$and": []any{map[string]any{"product": "camera"}, map[string]any{"price": map[string]any{"$lt": 100}}}},
				[]string{"camera-outdoor.txt"}},
			{"$or", map[string]any{"$or": []any{map[string]any{"lang": "de"}, map[string]any{"tags": "mesh"}}},
				[]string{"printer-office.txt", "router-mesh.txt"}},
			{"$or of $and", map[string]any{"$or": []any{
				map[string]any{"$and": []any{map[string]any{"product": "router"}, map[string]any{"price": map[string]any{"$gt": 50}}}},
				map[string]any{"published": map[string]any{"$lt": "2025-01-01"}},
			}}, []string{"camera-indoor.txt", "router-mesh.txt"}},
			{"$and of $or with a negation", map[string]any{"$and": []any{
				map[string]any{"$or": []any{map[string]any{"tags": "home"}, map[string]any{"tags": "office"}}},
				map[string]any{"product": map[string]any{"$ne": "router"}},
			}}, []string{"camera-indoor.txt", "printer-office.txt"}},
			{"$or next to a key", map[string]any{"lang": "zh", "$or": []any{map[string]any{"product": "camera"}, map[string]any{"price": 49}}},
				[]string{"camera-outdoor.txt"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				for _, mode := range []string{"vector", "hybrid"} {
					out := f.query(t, "customer support guide", tc.filter, map[string]any{"mode": mode})
					assert.Equal(t, tc.want, out.keptNames(), "%s: kept", mode)
					assert.Equal(t, tc.want, out.foundNames(), "%s: nothing else is even a candidate", mode)
				}
				// The lexical index's own filter: its hits are exactly the
				// matching documents. With all the weight on words a
				// candidate's relevance is its coverage, so only units
				// sharing a word of the question are kept, and each must
				// have been found by its words (hybrid's union would
				// otherwise hide a lexical filter error behind the vector
				// hits).
				out := f.query(t, "customer support guide", tc.filter, map[string]any{"mode": "hybrid", "lexicalWeight": 1, "scoreThreshold": 0.01})
				assert.Equal(t, tc.want, out.lexicalNames(), "lexical hits")
				assert.Equal(t, tc.want, out.keptNames(), "kept on their words")
				for _, c := range out.Candidates {
					if c.Kept {
						assert.NotNil(t, c.LexicalScore, "%s found by its words", c.DocumentName)
						assert.Equal(t, math.Round(c.Coverage*1e4)/1e4, c.FusedScore, "%s: the relevance is the coverage", c.DocumentName)
					} else {
						assert.Zero(t, c.Coverage, "%s shares no word of the question", c.DocumentName)
						assert.Equal(t, "below_threshold", dropped(c), c.DocumentName)
					}
				}
			})
		}
	})

	t.Run("the score threshold keeps a relevance at or above it and drops one below", func(t *testing.T) {
		const q = "restart the router wifi light"
		probe := f.query(t, q, nil, nil)
		assertRelevance(t, probe, q, "vector", 0)
		scores := map[string]float64{}
		for _, c := range probe.Candidates {
			require.NotNil(t, c.VectorScore)
			scores[c.Text] = c.FusedScore
		}
		t.Logf("relevances: %v", scores)
		require.GreaterOrEqual(t, len(probe.Candidates), 3)
		first, second := probe.Candidates[0].FusedScore, probe.Candidates[1].FusedScore
		require.Greater(t, first, second, "distinct relevances to put a threshold between")
		require.Positive(t, second)
		assert.Equal(t, "router-home.txt", probe.Candidates[0].DocumentName, "the router's guide answers best")

		check := func(threshold float64) {
			t.Helper()
			out := f.query(t, q, nil, map[string]any{"scoreThreshold": threshold})
			require.Len(t, out.Candidates, len(probe.Candidates), "the threshold cuts candidates, not the search")
			nKept := 0
			for _, c := range out.Candidates {
				if c.FusedScore >= threshold && c.FusedScore > 0 {
					assert.True(t, c.Kept, "%s scores %v ≥ %v", c.DocumentName, c.FusedScore, threshold)
					assert.Empty(t, dropped(c))
					nKept++
				} else {
					assert.False(t, c.Kept, "%s scores %v < %v (or 0)", c.DocumentName, c.FusedScore, threshold)
					assert.Equal(t, "below_threshold", dropped(c))
				}
			}
			assert.Len(t, out.kept(), nKept)
		}
		check((first + second) / 2)       // first just above, second just below
		check(second)                     // exactly at: kept
		check(math.Nextafter(second, 2))  // one ulp above: dropped
		check(math.Nextafter(second, -1)) // one ulp below: kept
		check(0)                          // a relevance of 0 is dropped even so

		out := f.query(t, q, nil, map[string]any{"scoreThreshold": (first + second) / 2})
		require.Len(t, out.kept(), 1)
		assert.Equal(t, probe.Candidates[0].ChunkID, out.kept()[0].ChunkID)
	})

	t.Run("topK keeps the best and drops the rest as beyond_top_k", func(t *testing.T) {
		for _, mode := range []string{"vector", "hybrid"} {
			out := f.query(t, "customer support guide", nil, map[string]any{"mode": mode, "topK": 2})
			vectorHits, lexicalHits, beyond := 0, 0, 0
			for _, c := range out.Candidates {
				if c.VectorScore != nil {
					vectorHits++
				}
				if c.LexicalScore != nil {
					lexicalHits++
				}
			}
			assert.Equal(t, min(8, f.totalUnits()), vectorHits, "%s: the vector pool is 4·topK", mode)
			assert.LessOrEqual(t, lexicalHits, 8, "%s: so is the lexical one", mode)
			if mode == "hybrid" {
				assert.Positive(t, lexicalHits)
			}
			for i, c := range out.Candidates {
				if i > 0 {
					assert.GreaterOrEqual(t, out.Candidates[i-1].FusedScore, c.FusedScore, "%s: relevance order", mode)
				}
				switch {
				case i < 2:
					assert.True(t, c.Kept, "%s: #%d %s", mode, i, c.DocumentName)
					assert.Positive(t, c.FusedScore)
				case c.FusedScore == 0:
					assert.Equal(t, "below_threshold", dropped(c), "%s: #%d %s has no relevance", mode, i, c.DocumentName)
				default:
					assert.False(t, c.Kept, "%s: #%d %s", mode, i, c.DocumentName)
					assert.Equal(t, "beyond_top_k", dropped(c), "%s: #%d %s", mode, i, c.DocumentName)
					beyond++
				}
			}
			assert.Len(t, out.kept(), 2, mode)
			assert.Positive(t, beyond, "%s: something relevant is beyond topK", mode)
		}
		// topK 1: the pool is 4, so only the best four are candidates.
		out := f.query(t, "customer support guide", nil, map[string]any{"topK": 1})
		assert.Len(t, out.Candidates, 4)
		assert.Len(t, out.kept(), 1)
	})

	t.Run("the evidence budget drops what does not fit and keeps a later passage that does", func(t *testing.T) {
		// "release notes" puts the long notes.txt first, so a budget below its
		// size drops it and keeps the shorter passages after it.
		probe := f.query(t, "customer support guide release notes", nil, nil)
		require.Equal(t, all, probe.keptNames())
		t.Logf("passage tokens: %v", f.tokens)
		total := 0
		for _, n := range f.tokens {
			total += n
		}
		assert.Equal(t, total, probe.EvidenceTokens, "every document kept: each passage counts once")
		// greedy is the documented rule: in relevance order, keep what still
		// fits, a document's passage costing its tokens once however many of
		// its units are kept; a relevance of 0 is never kept.
		greedy := func(budget int) (kept []bool, used int, keptAfterDrop bool) {
			dropped := false
			read := map[string]bool{}
			for _, c := range probe.Candidates {
				cost := f.tokens[c.DocumentName]
				if read[c.DocumentName] {
					cost = 0
				}
				fits := c.FusedScore > 0 && used+cost <= budget
				kept = append(kept, fits)
				switch {
				case fits:
					used += cost
					read[c.DocumentName] = true
					keptAfterDrop = keptAfterDrop || dropped && cost > 0
				case c.FusedScore > 0:
					dropped = true
				}
			}
			return kept, used, keptAfterDrop
		}
		// The smallest budget (the contract's least is 50) at which a
		// passage is dropped and a later, smaller one still fits.
		budget := 0
		for b := 50; b <= 2000 && budget == 0; b++ {
			if _, _, ok := greedy(b); ok {
				budget = b
			}
		}
		require.NotZero(t, budget, "the passages' sizes allow no such budget")
		want, used, _ := greedy(budget)
		out := f.query(t, "customer support guide release notes", nil, map[string]any{"maxEvidenceTokens": budget})
		require.Len(t, out.Candidates, len(probe.Candidates))
		for i, c := range out.Candidates {
			require.Equal(t, probe.Candidates[i].ChunkID, c.ChunkID, "the budget does not change the order")
			switch {
			case want[i]:
				assert.True(t, c.Kept, "%s (%d tokens) fits the budget of %d", c.DocumentName, f.tokens[c.DocumentName], budget)
				assert.Empty(t, dropped(c))
			case c.FusedScore == 0:
				assert.Equal(t, "below_threshold", dropped(c), c.DocumentName)
			default:
				assert.False(t, c.Kept, "%s (%d tokens) does not fit the budget of %d", c.DocumentName, f.tokens[c.DocumentName], budget)
				assert.Equal(t, "over_evidence_budget", dropped(c))
			}
		}
		assert.Equal(t, used, out.EvidenceTokens)
		assert.LessOrEqual(t, out.EvidenceTokens, budget)

		t.Run("topK is checked before the budget", func(t *testing.T) {
			out := f.query(t, "customer support guide", nil, map[string]any{"maxEvidenceTokens": 50, "topK": 1})
			kept := false
			for _, c := range out.Candidates {
				switch {
				case c.FusedScore == 0:
					assert.Equal(t, "below_threshold", dropped(c), c.DocumentName)
				case kept:
					assert.Equal(t, "beyond_top_k", dropped(c), "%s (%d tokens)", c.DocumentName, f.tokens[c.DocumentName])
				case f.tokens[c.DocumentName] <= 50:
					assert.True(t, c.Kept, c.DocumentName)
					kept = true
				default:
					assert.Equal(t, "over_evidence_budget", dropped(c), c.DocumentName)
				}
			}
			assert.True(t, kept)
			assert.Len(t, out.kept(), 1)
		})
	})

	t.Run("hybrid finds a rare product code that vectors score too low", func(t *testing.T) {
		const q = "qx7731"
		vec := f.query(t, q, nil, map[string]any{"mode": "vector", "scoreThreshold": 0.3})
		assertRelevance(t, vec, q, "vector", 0)
		if notes := vec.holding(q); notes != nil {
			require.NotNil(t, notes.VectorScore)
			t.Logf("vector score of notes.txt for qx7731: %v (relevance %v)", *notes.VectorScore, notes.FusedScore)
			assert.Equal(t, "notes.txt", notes.DocumentName)
			assert.Less(t, notes.FusedScore, 0.3)
			assert.False(t, notes.Kept)
			assert.Equal(t, "below_threshold", dropped(*notes))
			assert.Nil(t, notes.LexicalScore)
		}
		assert.NotContains(t, vec.keptNames(), "notes.txt", "vectors alone miss it")

		hyb := f.query(t, q, nil, map[string]any{"mode": "hybrid", "scoreThreshold": 0.3})
		assertRelevance(t, hyb, q, "hybrid", 0.3)
		notes := hyb.holding(q)
		require.NotNil(t, notes, "hybrid finds it")
		assert.Equal(t, "notes.txt", notes.DocumentName)
		require.NotNil(t, notes.LexicalScore)
		assert.Greater(t, *notes.LexicalScore, 0.0)
		// It covers the one-word question fully, which lifts its relevance
		// over the threshold its vector alone misses: 0.7·vector + 0.3·1
		// ≥ 0.3 whatever the vector relevance.
		assert.Equal(t, 1.0, notes.Coverage)
		assert.Less(t, vectorRelevance(notes.VectorScore), 0.3)
		assert.GreaterOrEqual(t, notes.FusedScore, 0.3)
		assert.True(t, notes.Kept, "its words lift it over the threshold")
		assert.Equal(t, notes.ChunkID, hyb.Candidates[0].ChunkID, "the only unit holding the code comes first")
		assert.Equal(t, []string{"notes.txt"}, hyb.keptNames())
		for _, c := range hyb.Candidates {
			if c.ChunkID != notes.ChunkID {
				assert.Nil(t, c.LexicalScore, "%s holds no qx7731", c.DocumentName)
				assert.Zero(t, c.Coverage, "%s holds no qx7731", c.DocumentName)
			}
		}
		require.NotEmpty(t, hyb.Citations)
		assert.Equal(t, notes.ChunkID, hyb.Citations[0].ChunkID, "cited first")
		assert.Equal(t, notes.FusedScore, hyb.Citations[0].Score, "with its relevance")
	})

	t.Run("hybrid order follows the relevance of vector and words", func(t *testing.T) {
		for _, q := range []string{"router wifi qx7731 pairing", "camera qx7731 adapter"} {
			for _, w := range []float64{0.3, 0.5, 0.9} {
				out := f.query(t, q, nil, map[string]any{"mode": "hybrid", "lexicalWeight": w})
				assertRelevance(t, out, q, "hybrid", w)
			}
		}
		// The weight reorders: camera-indoor.txt is the better vector hit
		// (notes.txt's unit with the code is long), but notes.txt covers
		// more of the question (qx7731, in one unit, weighs more by its idf
		// than camera, in two), and with the weight on words it moves
		// ahead. When written: camera-indoor.txt 0.1·0.2169 + 0.9·0.4169 =
		// 0.3969, notes.txt 0.1·0.0567 + 0.9·0.5831 = 0.5305.
		const q = "camera qx7731"
		vec := f.query(t, q, nil, map[string]any{"mode": "vector"})
		require.NotNil(t, vec.best("camera-indoor.txt"))
		require.NotNil(t, vec.best("notes.txt"))
		assert.Greater(t, vec.best("camera-indoor.txt").FusedScore, vec.best("notes.txt").FusedScore)
		assert.Less(t, vec.rank(t, "camera-indoor.txt"), vec.rank(t, "notes.txt"), "vector order")
		t.Logf("vector: camera-indoor.txt %v, notes.txt %v", vec.best("camera-indoor.txt").FusedScore, vec.best("notes.txt").FusedScore)
		hyb := f.query(t, q, nil, map[string]any{"mode": "hybrid", "lexicalWeight": 0.9})
		notes, camera := hyb.best("notes.txt"), hyb.best("camera-indoor.txt")
		require.NotNil(t, notes)
		require.NotNil(t, camera)
		assert.NotNil(t, notes.LexicalScore)
		assert.NotNil(t, camera.LexicalScore)
		assert.Greater(t, notes.Coverage, camera.Coverage)
		assert.Less(t, hyb.rank(t, "notes.txt"), hyb.rank(t, "camera-indoor.txt"), "hybrid order")
		t.Logf("hybrid 0.9: camera-indoor.txt %v (coverage %v), notes.txt %v (coverage %v)", camera.FusedScore, camera.Coverage, notes.FusedScore, notes.Coverage)
		// With all the weight on words the relevance is the coverage: the
		// unit holding every word of the question leads.
		const q2 = "qx7731 pairing problem"
		out := f.query(t, q2, nil, map[string]any{"mode": "hybrid", "lexicalWeight": 1})
		assertRelevance(t, out, q2, "hybrid", 1)
		assert.Equal(t, "notes.txt", out.Candidates[0].DocumentName)
		assert.Equal(t, 1.0, out.Candidates[0].Coverage)
		assert.Equal(t, 1.0, out.Candidates[0].FusedScore)
	})

	t.Run("insufficiency and hand-off at their boundaries", func(t *testing.T) {
		// "power cut" is in notes.txt, not in the router's guide: the best
		// hit answers only part of the question, so neither its relevance
		// nor its coverage is 1, and every threshold has room above.
		const q = "restart the router wifi light after a power cut"
		base := map[string]any{"scoreThreshold": 0.05, "topK": 20, "maxEvidenceTokens": 2000}
		with := func(over map[string]any) map[string]any {
			s := map[string]any{}
			for k, v := range base {
				s[k] = v
			}
			for k, v := range over {
				s[k] = v
			}
			return s
		}
		// The probe: a confidence threshold of 1 hands off with the numbers.
		probe := f.query(t, q, nil, with(map[string]any{"transferConfidenceThreshold": 1}))
		assertRelevance(t, probe, q, "vector", 0)
		require.True(t, probe.ShouldTransfer)
		tr := probe.TransferReason
		require.NotNil(t, tr)
		require.Equal(t, "low_confidence", tr.Code)
		hits, top, ans, tokens, conf := tr.Hits, tr.TopScore, tr.Answerability, tr.EvidenceTokens, tr.Confidence
		t.Logf("probe: hits=%d topScore=%v answerability=%v evidenceTokens=%d confidence=%v", hits, top, ans, tokens, conf)
		require.Positive(t, hits)
		require.Less(t, hits, 20, "room for minHits = hits+1 within topK")
		require.Less(t, top, 0.99, "room for a minTopScore above the top score")
		require.Positive(t, ans)
		require.Less(t, ans, 1.0, "room for a minAnswerability above the answerability")
		assert.Equal(t, "router-home.txt", probe.kept()[0].DocumentName)
		assert.Equal(t, len(probe.kept()), hits)
		assert.Equal(t, probe.topScore(), top, "topScore is the best kept relevance")
		assert.Equal(t, probe.kept()[0].Coverage, ans, "answerability is the best kept hit's coverage")
		assert.Zero(t, tr.MinAnswerability)
		assert.Equal(t, probe.EvidenceTokens, tokens)
		assert.Equal(t, probe.Confidence, conf)
		assert.EqualValues(t, 1, tr.Threshold)
		sum := 0
		for _, name := range probe.keptNames() {
			sum += f.tokens[name]
		}
		require.Greater(t, hits, len(probe.keptNames()), "some passage has several kept units")
		assert.Equal(t, sum, tokens, "evidence tokens are the kept units' passages, each once")
		assert.InDelta(t, expectedConfidence(probe, 0), conf, 1e-9, "the documented formula")

		decide := func(over map[string]any) labResult {
			t.Helper()
			out := f.query(t, q, nil, with(over))
			assert.Equal(t, hits, len(out.kept()), "thresholds never change what is kept")
			return out
		}
		expectTransfer := func(t *testing.T, out labResult, code string) *labTransfer {
			t.Helper()
			require.True(t, out.ShouldTransfer, "want %s", code)
			require.NotNil(t, out.TransferReason)
			tr := out.TransferReason
			assert.Equal(t, code, tr.Code)
			assert.Equal(t, hits, tr.Hits)
			assert.Equal(t, top, tr.TopScore)
			assert.Equal(t, ans, tr.Answerability)
			assert.Equal(t, tokens, tr.EvidenceTokens)
			assert.Equal(t, out.Confidence, tr.Confidence)
			return tr
		}
		expectAnswer := func(t *testing.T, out labResult) {
			t.Helper()
			assert.False(t, out.ShouldTransfer, "%+v", out.TransferReason)
			assert.Nil(t, out.TransferReason)
		}

		t.Run("minHits above the hits", func(t *testing.T) {
			tr := expectTransfer(t, decide(map[string]any{"minHits": hits + 1}), "insufficient_evidence")
			assert.Equal(t, hits+1, tr.MinHits)
			expectAnswer(t, decide(map[string]any{"minHits": hits}))
		})
		t.Run("zero hits", func(t *testing.T) {
			for _, mode := range []string{"vector", "hybrid"} {
				out := f.query(t, q, map[string]any{"lang": "fr"}, with(map[string]any{"mode": mode, "minHits": 1}))
				assert.Empty(t, out.Candidates)
				require.NotNil(t, out.TransferReason)
				tr := out.TransferReason
				assert.Equal(t, "no_evidence", tr.Code, mode)
				assert.Zero(t, tr.Hits)
				assert.Equal(t, 1, tr.MinHits)
				assert.Zero(t, tr.TopScore)
				assert.Zero(t, tr.Answerability)
				assert.Zero(t, tr.EvidenceTokens)
				assert.Zero(t, tr.Confidence)
				assert.Zero(t, out.Confidence)
			}
			// A query of punctuation only embeds to the zero vector: no hits.
			out := f.query(t, "?!", nil, with(map[string]any{"mode": "hybrid", "minHits": 1}))
			assert.Empty(t, out.Candidates)
			require.NotNil(t, out.TransferReason)
			assert.Equal(t, "no_evidence", out.TransferReason.Code)
			// With no hits the evidence is insufficient through any threshold
			// that asks for something, and the reason is still no_evidence.
			out = f.query(t, q, map[string]any{"lang": "fr"}, with(map[string]any{"minHits": 0, "minTopScore": 0.1}))
			require.NotNil(t, out.TransferReason)
			assert.Equal(t, "no_evidence", out.TransferReason.Code)
			out = f.query(t, q, map[string]any{"lang": "fr"}, with(map[string]any{"minHits": 0, "minAnswerability": 0.1}))
			require.NotNil(t, out.TransferReason)
			assert.Equal(t, "no_evidence", out.TransferReason.Code)
			// A strategy that leaves minAnswerability out gets the default
			// strategy's (0.5 when written), which asks for something too.
			s := labStrategy(with(map[string]any{"minHits": 0}))
			delete(s, "minAnswerability")
			out = f.run(t, "acme", map[string]any{"query": q, "filter": map[string]any{"lang": "fr"}, "strategy": s})
			assert.EqualValues(t, domain.DefaultMinAnswerability, out.Strategy["minAnswerability"])
			require.Positive(t, domain.DefaultMinAnswerability)
			require.NotNil(t, out.TransferReason)
			assert.Equal(t, "no_evidence", out.TransferReason.Code)
			assert.EqualValues(t, domain.DefaultMinAnswerability, out.TransferReason.MinAnswerability)
			// When nothing is asked for, no hits are judged by the confidence (0).
			out = f.query(t, q, map[string]any{"lang": "fr"}, with(map[string]any{"minHits": 0, "transferConfidenceThreshold": 0.1}))
			require.NotNil(t, out.TransferReason)
			assert.Equal(t, "low_confidence", out.TransferReason.Code)
		})
		t.Run("minTopScore just above, at and below the top score", func(t *testing.T) {
			tr := expectTransfer(t, decide(map[string]any{"minTopScore": math.Nextafter(top, 2)}), "low_score")
			assert.Equal(t, math.Nextafter(top, 2), tr.MinTopScore)
			expectTransfer(t, decide(map[string]any{"minTopScore": top + 0.01}), "low_score")
			expectAnswer(t, decide(map[string]any{"minTopScore": top}))
			expectAnswer(t, decide(map[string]any{"minTopScore": math.Nextafter(top, -1)}))
			// low_score comes before low_answerability and insufficient_evidence.
			expectTransfer(t, decide(map[string]any{"minTopScore": top + 0.01, "minAnswerability": 1, "minHits": hits + 1}), "low_score")
		})
		t.Run("minAnswerability just above, at and below the answerability", func(t *testing.T) {
			tr := expectTransfer(t, decide(map[string]any{"minAnswerability": math.Nextafter(ans, 2)}), "low_answerability")
			assert.Equal(t, math.Nextafter(ans, 2), tr.MinAnswerability)
			expectTransfer(t, decide(map[string]any{"minAnswerability": 1}), "low_answerability")
			expectAnswer(t, decide(map[string]any{"minAnswerability": ans}))
			expectAnswer(t, decide(map[string]any{"minAnswerability": math.Nextafter(ans, -1)}))
			// low_answerability comes before insufficient_evidence.
			expectTransfer(t, decide(map[string]any{"minAnswerability": 1, "minHits": hits + 1, "minEvidenceTokens": tokens + 1}), "low_answerability")
		})
		t.Run("minEvidenceTokens above the tokens", func(t *testing.T) {
			tr := expectTransfer(t, decide(map[string]any{"minEvidenceTokens": tokens + 1}), "insufficient_evidence")
			assert.Equal(t, tokens+1, tr.MinEvidenceTokens)
			out := decide(map[string]any{"minEvidenceTokens": tokens})
			expectAnswer(t, out)
			// Coverage is full at twice the minimum: the confidence moves with it.
			assert.InDelta(t, expectedConfidence(out, tokens), out.Confidence, 1e-9)
		})
		t.Run("transferConfidenceThreshold just above, at and below the confidence", func(t *testing.T) {
			tr := expectTransfer(t, decide(map[string]any{"transferConfidenceThreshold": conf + 0.0001}), "low_confidence")
			assert.Equal(t, conf+0.0001, tr.Threshold)
			assert.Equal(t, conf, tr.Confidence)
			expectAnswer(t, decide(map[string]any{"transferConfidenceThreshold": conf}))
			expectAnswer(t, decide(map[string]any{"transferConfidenceThreshold": conf - 0.0001}))
			// insufficient_evidence comes before low_confidence.
			expectTransfer(t, decide(map[string]any{"transferConfidenceThreshold": 1, "minHits": hits + 1}), "insufficient_evidence")
		})
	})

	t.Run("another tenant's lab never sees these documents", func(t *testing.T) {
		for _, mode := range []string{"vector", "hybrid"} {
			for _, q := range []string{"customer support guide", "qx7731", "home router wifi"} {
				out := f.run(t, "globex", map[string]any{"query": q, "strategy": labStrategy(map[string]any{"mode": mode})})
				assert.NotEmpty(t, out.Candidates, "%s %q: globex finds its own document", mode, q)
				for _, c := range out.Candidates {
					assert.Equal(t, f.globex, c.DocumentID, "%s %q: globex sees only its own document", mode, q)
				}
				out = f.run(t, "globex", map[string]any{"query": q, "kbIds": []string{f.kb}, "strategy": labStrategy(map[string]any{"mode": mode, "minHits": 1})})
				assert.Empty(t, out.Candidates, "%s %q: acme's knowledge base is not globex's", mode, q)
				require.NotNil(t, out.TransferReason)
				assert.Equal(t, "no_evidence", out.TransferReason.Code)

				acme := f.query(t, q, nil, map[string]any{"mode": mode})
				for _, c := range acme.Candidates {
					assert.NotEqual(t, f.globex, c.DocumentID, "%s %q: acme never sees globex's", mode, q)
				}
			}
		}
		// globex has defined no fields: acme's are not its filters.
		r := f.e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "globex",
			body: map[string]any{"query": "router", "filter": map[string]any{"product": "router"}}})
		assert.Equal(t, "validation_failed", r.Code(t))
	})
}

// vectorRelevance maps a cosine through the embedding model's calibration
// (domain.CalibrationFor; for the offline embedder, when written: 0 at a
// cosine of 0.02 or below, 1 at 0.42 or above), linear between; 0 for a
// candidate the vector index did not find.
func vectorRelevance(cosine *float64) float64 {
	cal := domain.CalibrationFor(domain.OfflineEmbeddingModel)
	floor, ceiling := cal.Floor, cal.Ceiling
	if cosine == nil || !(*cosine > floor) {
		return 0
	}
	return min(1, (*cosine-floor)/(ceiling-floor))
}

// relevance is a candidate's documented relevance: its vector relevance,
// in hybrid mode (1 − w)·vector + w·coverage, to four decimals.
func relevance(mode string, w float64, c labCandidate) float64 {
	r := vectorRelevance(c.VectorScore)
	if mode == "hybrid" {
		r = (1-w)*r + w*c.Coverage
	}
	return math.Round(r*1e4) / 1e4
}

// holdsEvery reports whether text holds every analysed term of query.
func holdsEvery(query, text string) bool {
	has := analysis.TermSet(text)
	for _, term := range analysis.Terms(query) {
		if _, ok := has[term]; !ok {
			return false
		}
	}
	return true
}

// assertRelevance checks a run's relevances against the documented
// formula (from each candidate's cosine and coverage), its coverages
// against what the texts hold (all of the question's terms: 1; a lexical
// hit shares some: above 0), and that the candidates come most relevant
// first (ties by chunk id).
func assertRelevance(t *testing.T, out labResult, query, mode string, w float64) {
	t.Helper()
	for i, c := range out.Candidates {
		assert.GreaterOrEqual(t, c.Coverage, 0.0, "%q: coverage of %q", query, c.Text)
		assert.LessOrEqual(t, c.Coverage, 1.0, "%q: coverage of %q", query, c.Text)
		if holdsEvery(query, c.Text) {
			assert.Equal(t, 1.0, c.Coverage, "%q holds every term of %q", c.Text, query)
		}
		if c.LexicalScore != nil {
			assert.Positive(t, c.Coverage, "%q: a lexical hit covers some of %q", c.Text, query)
		}
		if mode == "vector" {
			assert.Nil(t, c.LexicalScore, "vector mode asks no lexical index")
		}
		assert.InDelta(t, relevance(mode, w, c), c.FusedScore, 1e-9, "%s w=%v %q: relevance of %q", mode, w, query, c.Text)
		if i > 0 {
			prev := out.Candidates[i-1]
			assert.True(t, prev.FusedScore > c.FusedScore || prev.FusedScore == c.FusedScore && prev.ChunkID < c.ChunkID,
				"%s w=%v: %s (%v) before %s (%v)", mode, w, prev.DocumentName, prev.FusedScore, c.DocumentName, c.FusedScore)
		}
	}
}

// expectedConfidence recomputes the documented confidence from a run's
// kept candidates (most relevant first): 0.45·top + 0.35·answerability +
// 0.10·support + 0.10·coverage, to four decimals, where top is the best
// relevance, answerability the best hit's coverage, support the best
// three relevances summed over three, and coverage min(1, evidenceTokens /
// (2·minEvidenceTokens)) with 0 counting as 20.
func expectedConfidence(r labResult, minTokens int) float64 {
	kept := r.kept()
	if len(kept) == 0 {
		return 0
	}
	top, answerability := kept[0].FusedScore, kept[0].Coverage
	n := min(3, len(kept))
	mean := 0.0
	for _, c := range kept[:n] {
		mean += c.FusedScore / float64(n)
	}
	support := mean * float64(n) / 3
	if minTokens <= 0 {
		minTokens = 20
	}
	coverage := min(1, float64(r.EvidenceTokens)/float64(2*minTokens))
	return min(1, math.Round((0.45*top+0.35*answerability+0.10*support+0.10*coverage)*1e4)/1e4)
}

// withoutSpace is s with its white space removed.
func withoutSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}
