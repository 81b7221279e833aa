package main

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Retrieval on real ingested documents, observed through the RAG lab: each
// document is one short chunk with distinct metadata, and every run names
// its strategy, so what is kept and why depends on nothing else.

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

// retrievalFixture is acme with retrievalDocs indexed in one knowledge
// base, and globex with one document of its own.
type retrievalFixture struct {
	e      *env
	kb     string
	ids    map[string]string // document name → id
	tokens map[string]int    // document name → its chunk's tokens
	globex string            // globex's document id
}

func newRetrievalFixture(t *testing.T) *retrievalFixture {
	e := newEnv(t)
	f := &retrievalFixture{e: e, ids: map[string]string{}, tokens: map[string]int{}}
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
		require.Len(t, chunks, 1, "%s is one chunk", d.name)
		f.ids[d.name] = id
		f.tokens[d.name] = int(chunks[0]["tokens"].(float64))
	}
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
		"minHits": 0, "minTopScore": 0, "minEvidenceTokens": 0, "transferConfidenceThreshold": 0,
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
	VectorScore  *float64 `json:"vectorScore"`
	LexicalScore *float64 `json:"lexicalScore"`
	FusedScore   float64  `json:"fusedScore"`
	Kept         bool     `json:"kept"`
	Dropped      *string  `json:"dropped"`
}

type labTransfer struct {
	Code              string  `json:"code"`
	Hits              int     `json:"hits"`
	MinHits           int     `json:"minHits"`
	TopScore          float64 `json:"topScore"`
	MinTopScore       float64 `json:"minTopScore"`
	EvidenceTokens    int     `json:"evidenceTokens"`
	MinEvidenceTokens int     `json:"minEvidenceTokens"`
	Confidence        float64 `json:"confidence"`
	Threshold         float64 `json:"threshold"`
}

// labResult is the part of a lab run these tests read.
type labResult struct {
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

func (r labResult) keptNames() []string  { return names(r.kept()) }
func (r labResult) foundNames() []string { return names(r.Candidates) }
func (r labResult) find(name string) *labCandidate {
	for i := range r.Candidates {
		if r.Candidates[i].DocumentName == name {
			return &r.Candidates[i]
		}
	}
	return nil
}

// topScore is the best kept vector score (what the decision is judged on).
func (r labResult) topScore() float64 {
	top := 0.0
	for _, c := range r.kept() {
		if c.VectorScore != nil {
			top = max(top, *c.VectorScore)
		}
	}
	return top
}

func names(cs []labCandidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.DocumentName)
	}
	sort.Strings(out)
	return out
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

func TestRetrievalThroughTheRagLab(t *testing.T) {
	f := newRetrievalFixture(t)
	all := []string{}
	for _, d := range retrievalDocs {
		all = append(all, d.name)
	}
	sort.Strings(all)

	t.Run("every document is found when nothing filters", func(t *testing.T) {
		for _, mode := range []string{"vector", "hybrid"} {
			out := f.query(t, "customer support guide", nil, map[string]any{"mode": mode})
			assert.Equal(t, all, out.keptNames(), mode)
			for _, c := range out.Candidates {
				require.NotNil(t, c.VectorScore, "%s: %s found by its vector", mode, c.DocumentName)
				assert.Greater(t, *c.VectorScore, 0.0, "%s: %s", mode, c.DocumentName)
				if mode == "hybrid" {
					assert.NotNil(t, c.LexicalScore, "%s: every chunk holds the words", c.DocumentName)
				} else {
					assert.Nil(t, c.LexicalScore, "vector mode asks no lexical index")
				}
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
				// The lexical index's own filter: at a vector threshold of 1
				// only lexical hits are kept (hybrid's union would otherwise
				// hide a lexical filter error behind the vector hits).
				out := f.query(t, "customer support guide", tc.filter, map[string]any{"mode": "hybrid", "scoreThreshold": 1})
				assert.Equal(t, tc.want, out.keptNames(), "lexical hits kept")
				for _, c := range out.Candidates {
					assert.NotNil(t, c.LexicalScore, "%s found by its words", c.DocumentName)
				}
			})
		}
	})

	t.Run("the score threshold keeps a score at or above it and drops one below", func(t *testing.T) {
		probe := f.query(t, "restart the router wifi light", nil, nil)
		scores := map[string]float64{}
		var byScore []labCandidate
		for _, c := range probe.Candidates {
			require.NotNil(t, c.VectorScore)
			scores[c.DocumentName] = *c.VectorScore
			byScore = append(byScore, c)
		}
		sort.SliceStable(byScore, func(i, j int) bool { return *byScore[i].VectorScore > *byScore[j].VectorScore })
		require.GreaterOrEqual(t, len(byScore), 3)
		first, second := *byScore[0].VectorScore, *byScore[1].VectorScore
		require.Greater(t, first, second, "distinct scores to put a threshold between")
		t.Logf("scores: %v", scores)

		check := func(threshold float64) {
			out := f.query(t, "restart the router wifi light", nil, map[string]any{"scoreThreshold": threshold})
			require.Len(t, out.Candidates, len(probe.Candidates), "the threshold cuts candidates, not the search")
			nKept := 0
			for _, c := range out.Candidates {
				if *c.VectorScore >= threshold {
					assert.True(t, c.Kept, "%s scores %v ≥ %v", c.DocumentName, *c.VectorScore, threshold)
					assert.Empty(t, dropped(c))
					nKept++
				} else {
					assert.False(t, c.Kept, "%s scores %v < %v", c.DocumentName, *c.VectorScore, threshold)
					assert.Equal(t, "below_threshold", dropped(c))
				}
			}
			assert.Len(t, out.kept(), nKept)
		}
		check((first + second) / 2)       // first just above, second just below
		check(second)                     // exactly at: kept
		check(math.Nextafter(second, 2))  // one ulp above: dropped
		check(math.Nextafter(second, -1)) // one ulp below: kept

		out := f.query(t, "restart the router wifi light", nil, map[string]any{"scoreThreshold": (first + second) / 2})
		assert.Equal(t, []string{byScore[0].DocumentName}, out.keptNames())
	})

	t.Run("topK keeps the best and drops the rest as beyond_top_k", func(t *testing.T) {
		for _, mode := range []string{"vector", "hybrid"} {
			out := f.query(t, "customer support guide", nil, map[string]any{"mode": mode, "topK": 2})
			require.Len(t, out.Candidates, len(all), "%s: the pool is 4·topK", mode)
			for i, c := range out.Candidates {
				if i > 0 {
					assert.GreaterOrEqual(t, out.Candidates[i-1].FusedScore, c.FusedScore, "%s: fused order", mode)
				}
				if i < 2 {
					assert.True(t, c.Kept, "%s: #%d %s", mode, i, c.DocumentName)
				} else {
					assert.False(t, c.Kept, "%s: #%d %s", mode, i, c.DocumentName)
					assert.Equal(t, "beyond_top_k", dropped(c), "%s: #%d %s", mode, i, c.DocumentName)
				}
			}
		}
		// topK 1: the pool is 4, so only the best four are candidates.
		out := f.query(t, "customer support guide", nil, map[string]any{"topK": 1})
		assert.Len(t, out.Candidates, 4)
		assert.Len(t, out.kept(), 1)
	})

	t.Run("the evidence budget drops what does not fit and keeps a later chunk that does", func(t *testing.T) {
		probe := f.query(t, "customer support guide", nil, nil)
		require.Len(t, probe.Candidates, len(all))
		t.Logf("tokens: %v", f.tokens)
		// greedy is the documented rule: in fused order, keep what still fits.
		greedy := func(budget int) (kept []bool, used int, keptAfterDrop bool) {
			dropped := false
			for _, c := range probe.Candidates {
				n := f.tokens[c.DocumentName]
				fits := used+n <= budget
				kept = append(kept, fits)
				if fits {
					used += n
					keptAfterDrop = keptAfterDrop || dropped
				} else {
					dropped = true
				}
			}
			return kept, used, keptAfterDrop
		}
		// The smallest budget (the contract's least is 50) at which a
		// chunk is dropped and a later, smaller one still fits.
		budget := 0
		for b := 50; b <= 2000 && budget == 0; b++ {
			if _, _, ok := greedy(b); ok {
				budget = b
			}
		}
		require.NotZero(t, budget, "the chunks' sizes allow no such budget")
		want, used, _ := greedy(budget)
		out := f.query(t, "customer support guide", nil, map[string]any{"maxEvidenceTokens": budget})
		require.Len(t, out.Candidates, len(probe.Candidates))
		for i, c := range out.Candidates {
			require.Equal(t, probe.Candidates[i].ChunkID, c.ChunkID, "the budget does not change the order")
			if want[i] {
				assert.True(t, c.Kept, "%s (%d tokens) fits the budget of %d", c.DocumentName, f.tokens[c.DocumentName], budget)
				assert.Empty(t, dropped(c))
			} else {
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
		vec := f.query(t, "qx7731", nil, map[string]any{"mode": "vector", "scoreThreshold": 0.3})
		notes := vec.find("notes.txt")
		if notes != nil {
			require.NotNil(t, notes.VectorScore)
			t.Logf("vector score of notes.txt for qx7731: %v", *notes.VectorScore)
			assert.Less(t, *notes.VectorScore, 0.3)
			assert.False(t, notes.Kept)
			assert.Equal(t, "below_threshold", dropped(*notes))
			assert.Nil(t, notes.LexicalScore)
		}
		assert.NotContains(t, vec.keptNames(), "notes.txt", "vectors alone miss it")

		hyb := f.query(t, "qx7731", nil, map[string]any{"mode": "hybrid", "scoreThreshold": 0.3})
		notes = hyb.find("notes.txt")
		require.NotNil(t, notes, "hybrid finds it")
		require.NotNil(t, notes.LexicalScore)
		assert.Greater(t, *notes.LexicalScore, 0.0)
		assert.True(t, notes.Kept, "a lexical hit passes the vector threshold")
		assert.Equal(t, "notes.txt", hyb.Candidates[0].DocumentName, "the only lexical hit comes first")
		for _, c := range hyb.Candidates {
			if c.DocumentName != "notes.txt" {
				assert.Nil(t, c.LexicalScore, "%s holds no qx7731", c.DocumentName)
			}
		}
		assertRRF(t, hyb, 0.3)
		require.NotEmpty(t, hyb.Citations)
		assert.Equal(t, notes.ChunkID, hyb.Citations[0].ChunkID, "cited first")
	})

	t.Run("hybrid order follows reciprocal rank fusion", func(t *testing.T) {
		for _, q := range []string{"router wifi qx7731 pairing", "camera qx7731 adapter"} {
			for _, w := range []float64{0.3, 0.5, 0.9} {
				out := f.query(t, q, nil, map[string]any{"mode": "hybrid", "lexicalWeight": w})
				assertRRF(t, out, w)
			}
		}
		// Fusion reorders: camera-indoor.txt is the better vector hit, but
		// notes.txt the better lexical one, and with the weight on words
		// it moves ahead.
		const q = "camera qx7731 adapter"
		rank := func(out labResult, name string) int {
			for i, c := range out.Candidates {
				if c.DocumentName == name {
					return i
				}
			}
			t.Fatalf("%s not found", name)
			return -1
		}
		vec := f.query(t, q, nil, map[string]any{"mode": "vector"})
		assert.Less(t, rank(vec, "camera-indoor.txt"), rank(vec, "notes.txt"), "vector order")
		hyb := f.query(t, q, nil, map[string]any{"mode": "hybrid", "lexicalWeight": 0.9})
		require.NotNil(t, hyb.find("notes.txt").LexicalScore)
		require.NotNil(t, hyb.find("camera-indoor.txt").LexicalScore)
		assert.Greater(t, *hyb.find("notes.txt").LexicalScore, *hyb.find("camera-indoor.txt").LexicalScore)
		assert.Less(t, rank(hyb, "notes.txt"), rank(hyb, "camera-indoor.txt"), "hybrid order")
		// With all the weight on words, the best lexical hit leads.
		out := f.query(t, "qx7731 pairing problem", nil, map[string]any{"mode": "hybrid", "lexicalWeight": 1})
		assert.Equal(t, "notes.txt", out.Candidates[0].DocumentName)
		assertRRF(t, out, 1)
	})

	t.Run("insufficiency and hand-off at their boundaries", func(t *testing.T) {
		const q = "restart the router wifi light"
		base := map[string]any{"scoreThreshold": 0.05, "topK": 10, "maxEvidenceTokens": 2000}
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
		require.True(t, probe.ShouldTransfer)
		tr := probe.TransferReason
		require.NotNil(t, tr)
		require.Equal(t, "low_confidence", tr.Code)
		hits, top, tokens, conf := tr.Hits, tr.TopScore, tr.EvidenceTokens, tr.Confidence
		t.Logf("probe: hits=%d topScore=%v evidenceTokens=%d confidence=%v", hits, top, tokens, conf)
		require.Positive(t, hits)
		require.Less(t, hits, 10, "room for minHits = hits+1 within topK")
		assert.Equal(t, len(probe.kept()), hits)
		assert.Equal(t, probe.topScore(), top, "topScore is the best kept vector score")
		assert.Equal(t, probe.EvidenceTokens, tokens)
		assert.Equal(t, probe.Confidence, conf)
		assert.EqualValues(t, 1, tr.Threshold)
		sum := 0
		for _, c := range probe.kept() {
			sum += f.tokens[c.DocumentName]
		}
		assert.Equal(t, sum, tokens, "evidence tokens are the kept chunks' tokens")
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
			// low_score comes before insufficient_evidence.
			expectTransfer(t, decide(map[string]any{"minTopScore": top + 0.01, "minHits": hits + 1}), "low_score")
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

// assertRRF checks a hybrid run's fused scores against reciprocal rank
// fusion (k = 60) of the vector and lexical lists, whose ranks are
// rebuilt from the candidates' scores (ties by chunk id, as the indexes
// break them), and that the candidates come in fused order.
func assertRRF(t *testing.T, out labResult, w float64) {
	t.Helper()
	rank := func(score func(labCandidate) *float64) map[string]int {
		var list []labCandidate
		for _, c := range out.Candidates {
			if score(c) != nil {
				list = append(list, c)
			}
		}
		slices.SortFunc(list, func(a, b labCandidate) int {
			if sa, sb := *score(a), *score(b); sa != sb {
				if sa > sb {
					return -1
				}
				return 1
			}
			return cmpString(a.ChunkID, b.ChunkID)
		})
		r := map[string]int{}
		for i, c := range list {
			r[c.ChunkID] = i + 1
		}
		return r
	}
	vr := rank(func(c labCandidate) *float64 { return c.VectorScore })
	lr := rank(func(c labCandidate) *float64 { return c.LexicalScore })
	require.NotEmpty(t, lr, "the lexical index found something")
	for i, c := range out.Candidates {
		want := 0.0
		if r, ok := vr[c.ChunkID]; ok {
			want += (1 - w) / float64(60+r)
		}
		if r, ok := lr[c.ChunkID]; ok {
			want += w / float64(60+r)
		}
		assert.InDelta(t, want, c.FusedScore, 1e-12, "w=%v %s", w, c.DocumentName)
		if i > 0 {
			prev := out.Candidates[i-1]
			assert.True(t, prev.FusedScore > c.FusedScore || prev.FusedScore == c.FusedScore && prev.ChunkID < c.ChunkID,
				"w=%v: %s (%v) before %s (%v)", w, prev.DocumentName, prev.FusedScore, c.DocumentName, c.FusedScore)
		}
	}
}

// expectedConfidence recomputes the documented confidence from a run's
// kept candidates: 0.60·top + 0.25·support + 0.15·coverage, to four
// decimals.
func expectedConfidence(r labResult, minTokens int) float64 {
	var scores []float64
	for _, c := range r.kept() {
		if c.VectorScore != nil {
			scores = append(scores, max(0, min(1, *c.VectorScore)))
		}
	}
	if len(r.kept()) == 0 {
		return 0
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	top, support := 0.0, 0.0
	if len(scores) > 0 {
		top = scores[0]
		n := min(3, len(scores))
		mean := 0.0
		for _, s := range scores[:n] {
			mean += s / float64(n)
		}
		support = mean * float64(min(len(r.kept()), 3)) / 3
	}
	if minTokens <= 0 {
		minTokens = 20
	}
	coverage := min(1, float64(r.EvidenceTokens)/float64(2*minTokens))
	return min(1, math.Round((0.60*top+0.25*support+0.15*coverage)*1e4)/1e4)
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
