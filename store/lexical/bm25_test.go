package lexical

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// abc is the hand-computed example: three chunks of 3, 2 and 4 terms, so
// N = 3 and avgdl = 3.
func abc(t *testing.T) *Index {
	x := New()
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "a", KBID: "kb", DocumentID: "d1", Text: "Apple banana apple"},
		{ChunkID: "b", KBID: "kb", DocumentID: "d1", Text: "banana, cherry"},
		{ChunkID: "c", KBID: "kb", DocumentID: "d2", Text: "cherry date elder fig"},
	}))
	return x
}

func TestBM25HandComputed(t *testing.T) {
	x := abc(t)

	// "apple": df 1, idf = ln(1 + 2.5/1.5) = ln(8/3). Chunk a holds it
	// twice and has the mean length, so its norm is K1 = 1.2:
	// 2·2.2 / (2 + 1.2) = 1.375.
	hits := search(t, x, "t1", Query{Text: "apple"})
	require.Len(t, hits, 1)
	assert.Equal(t, Hit{ChunkID: "a", KBID: "kb", DocumentID: "d1", Score: hits[0].Score}, hits[0])
	assert.InDelta(t, 1.3486402228911234, hits[0].Score, 1e-12) // 1.375 · ln(8/3)

	// "banana cherry": both df 2, idf = ln(1 + 1.5/2.5) = ln 1.6.
	//  a: banana once, |a| = 3: norm 1.2, 2.2/2.2 = 1          → ln 1.6
	//  b: both once, |b| = 2: norm 1.2·(0.25 + 0.5) = 0.9,
	//     2.2/1.9 each                                          → 2·ln 1.6·2.2/1.9
	//  c: cherry once, |c| = 4: norm 1.2·(0.25 + 1) = 1.5,
	//     2.2/2.5 = 0.88                                        → 0.88·ln 1.6
	hits = search(t, x, "t1", Query{Text: "Banana CHERRY"})
	assert.Equal(t, []string{"b", "a", "c"}, ids(hits))
	s := scores(hits)
	assert.InDelta(t, 1.088429457200651, s["b"], 1e-12)
	assert.InDelta(t, 0.47000362924573563, s["a"], 1e-12)
	assert.InDelta(t, 0.4136031937362474, s["c"], 1e-12)

	// A term repeated in the query counts twice.
	twice := search(t, x, "t1", Query{Text: "apple apple"})
	assert.InDelta(t, 2*1.3486402228911234, twice[0].Score, 1e-12)

	// Unknown terms add nothing; a query of none finds nothing.
	assert.Equal(t, hits, search(t, x, "t1", Query{Text: "banana zebra cherry"}))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: "zebra"}))
	assert.Equal(t, []Hit{}, search(t, x, "t1", Query{Text: " ?! "}))

	// Deleting c updates N, avgdl and df: N = 2, avgdl = 2.5, idf(apple) =
	// ln(1 + 1.5/1.5) = ln 2, norm(a) = 1.2·(0.25 + 0.75·3/2.5) = 1.38.
	assert.Equal(t, 1, x.DeleteDocument("t1", "d2"))
	hits = search(t, x, "t1", Query{Text: "apple"})
	require.Len(t, hits, 1)
	assert.InDelta(t, 0.902321773509988, hits[0].Score, 1e-12) // ln 2 · 4.4/3.38
	checkInvariants(t, x, "t1")
}

func TestChineseQueryFindsChineseDoc(t *testing.T) {
	x := New()
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "refund", Text: "退款申请流程：登录账户后，在订单页面点击申请退款，客服将在三个工作日内处理。"},
		{ChunkID: "shipping", Text: "配送说明：订单付款后四十八小时内发货，偏远地区可能延迟。"},
		{ChunkID: "english", Text: "How to request a refund: open the order page and click Refund."},
	}))
	hits := search(t, x, "t1", Query{Text: "如何申请退款？"})
	require.NotEmpty(t, hits)
	assert.Equal(t, "refund", hits[0].ChunkID)
	assert.NotContains(t, ids(hits), "english")

	hits = search(t, x, "t1", Query{Text: "发货时间"})
	require.NotEmpty(t, hits)
	assert.Equal(t, "shipping", hits[0].ChunkID)

	// Mixed: an English word inside Chinese text. The shipping text
	// shares the character 款 (付款) and comes last.
	hits = search(t, x, "t1", Query{Text: "refund 退款"})
	require.Len(t, hits, 3)
	assert.ElementsMatch(t, []string{"refund", "english"}, ids(hits)[:2])
}

func TestTiesByChunkID(t *testing.T) {
	x := New()
	var docs []Doc
	for _, id := range []string{"c9", "c1", "c5", "c3", "c7"} {
		docs = append(docs, Doc{ChunkID: id, Text: "same words here"})
	}
	require.NoError(t, x.Upsert("t1", docs))
	for range 5 {
		assert.Equal(t, []string{"c1", "c3", "c5"}, ids(search(t, x, "t1", Query{Text: "words", TopK: 3})))
	}
	assert.Equal(t, []string{"c1", "c3", "c5", "c7", "c9"}, ids(search(t, x, "t1", Query{Text: "words"})))
}

// The statistics kept incrementally through random upserts, replacements
// and deletes (enough to compact several times) give exactly the scores of
// an index built afresh from the chunks that remain.
func TestIncrementalEqualsRebuilt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon 退款 申请 订单")
	text := func() string {
		n := 1 + rng.IntN(12)
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	x := New()
	final := map[string]Doc{}
	for round := range 40 {
		var batch []Doc
		for range 200 {
			d := Doc{
				ChunkID:    "c" + strconv.Itoa(rng.IntN(1500)),
				KBID:       "kb" + strconv.Itoa(rng.IntN(3)),
				DocumentID: "d" + strconv.Itoa(rng.IntN(100)),
				Text:       text(),
			}
			batch = append(batch, d)
			final[d.ChunkID] = d
		}
		require.NoError(t, x.Upsert("t1", batch))
		if round%3 == 0 {
			doc := "d" + strconv.Itoa(rng.IntN(100))
			n := x.DeleteDocument("t1", doc)
			m := 0
			for id, d := range final {
				if d.DocumentID == doc {
					delete(final, id)
					m++
				}
			}
			require.Equal(t, m, n)
		}
		if round == 20 {
			n := x.DeleteKnowledgeBase("t1", "kb1")
			m := 0
			for id, d := range final {
				if d.KBID == "kb1" {
					delete(final, id)
					m++
				}
			}
			require.Equal(t, m, n)
		}
		checkInvariants(t, x, "t1")
	}
	require.Equal(t, len(final), x.Len("t1"))
	require.Less(t, len(x.shards.Get("t1", false).chunks), 4000, "8000 upserts and never compacted")

	fresh := New()
	var docs []Doc
	for _, d := range final {
		docs = append(docs, d)
	}
	require.NoError(t, fresh.Upsert("t1", docs))
	for range 50 {
		q := Query{Text: text(), TopK: 2000}
		want := search(t, fresh, "t1", q)
		got := search(t, x, "t1", q)
		require.Equal(t, len(want), len(got))
		ws, gs := scores(want), scores(got)
		for id, w := range ws {
			require.InDelta(t, w, gs[id], 1e-12*math.Max(1, w), id)
		}
	}
}

func TestSearchValidation(t *testing.T) {
	x := abc(t)
	for _, k := range []int{0, -1} {
		_, err := x.Search(t.Context(), "t1", Query{Text: "apple", TopK: k})
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	}
	// TopK above MaxTopK is lowered, not refused.
	assert.Len(t, search(t, x, "t1", Query{Text: "banana", TopK: MaxTopK * 10}), 2)
	// Unknown tenant: empty, not nil.
	assert.Equal(t, []Hit{}, search(t, x, "nobody", Query{Text: "apple"}))
}

func TestSearchCancelled(t *testing.T) {
	x := abc(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := x.Search(ctx, "t1", Query{Text: "apple", TopK: 5})
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
}
