package offline

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// The embedder is the default domain.Embedder.
var _ domain.Embedder = (*Embedder)(nil)

func embed(t testing.TB, e *Embedder, texts ...string) [][]float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, vs, len(texts))
	return vs
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestModelAndDims(t *testing.T) {
	e := New()
	assert.Equal(t, "offline-hash-v1", e.Model())
	assert.Equal(t, 768, e.Dims())
	for _, v := range embed(t, e, "hello", "") {
		assert.Len(t, v, 768)
	}
}

// Vectors are stored and compared across processes, so the same text must
// give the bit-identical vector every time, whatever was embedded before
// (the scratch buffers are reused).
func TestDeterministic(t *testing.T) {
	texts := []string{
		"How do I get a refund for my order?",
		"退款政策是什么？商品签收后七天内可以申请退款。",
		"コーヒーの返品について",
		"Ça coûte 12,50 € — ﬁnal price (NFKC: ｆｕｌｌｗｉｄｔｈ)",
		strings.Repeat("lorem ipsum dolor sit amet ", 400),
	}
	e := New()
	first := embed(t, e, texts...)
	for range 3 {
		again := embed(t, New(), texts...)
		reused := embed(t, e, texts[len(texts)-1], texts[0], texts[1], texts[2], texts[3])
		reused = append(reused[1:], reused[0])
		for i := range texts {
			assert.Equal(t, first[i], again[i], "text %d, fresh embedder", i)
			assert.Equal(t, first[i], reused[i], "text %d, reused scratch", i)
		}
	}
}

// A golden digest pins the features, hashing and weights: if this test
// fails, vectors stored by earlier builds are no longer comparable with new
// ones, and ModelName's version suffix must be bumped along with the digest.
func TestGoldenVector(t *testing.T) {
	v := embed(t, New(), "Refund policy: 退款政策是什么？ Café ＡＢＣ 42, refund refund 退款")[0]
	h := fnv.New64a()
	for _, f := range v {
		_ = binary.Write(h, binary.LittleEndian, math.Float32bits(f))
	}
	assert.Equal(t, "offline-hash-v1", ModelName)
	assert.Equal(t, golden, fmt.Sprintf("%016x", h.Sum64()))
}

const golden = "93cbc49780db4288"

func TestUnitNorm(t *testing.T) {
	e := New()
	for _, v := range embed(t, e, "a", "Refunds are issued within five days.", "退款", strings.Repeat("word ", 5000), "ÀÉÎ Ωμέγα Привет мир") {
		assert.InDelta(t, 1, math.Sqrt(dot(v, v)), 1e-5)
	}
}

// Text without words or CJK characters has no features: the zero vector,
// which matches nothing.
func TestEmptyTextIsZero(t *testing.T) {
	e := New()
	for _, v := range embed(t, e, "", "   ", "?!… —— ，。", "\n\t") {
		assert.Zero(t, dot(v, v))
	}
	vs, err := e.Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, vs)
}

func TestSimilarTextsScoreHigher(t *testing.T) {
	e := New()
	cases := []struct {
		name                      string
		query, related, unrelated string
	}{
		{
			name:      "english",
			query:     "How do I get a refund?",
			related:   "Refunds are issued within 5 business days after we receive the returned item. To request a refund, open your order and choose Return.",
			unrelated: "Shipping usually takes 3 to 7 business days. You can track the parcel from the order page once the courier collects it.",
		},
		{
			name:      "chinese",
			query:     "退款政策是什么",
			related:   "我们的退款政策：商品签收后7天内可申请无理由退款，退款将在3-5个工作日内原路返回。",
			unrelated: "订单发货后，物流信息会在24小时内更新，您可以在订单详情页查看快递单号和配送进度。",
		},
		{
			name:      "inflection",
			query:     "cancelled subscription",
			related:   "You can cancel your subscriptions at any time from the billing page.",
			unrelated: "Our offices are closed on public holidays.",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := embed(t, e, c.query, c.related, c.unrelated)
			rel, unrel := dot(vs[0], vs[1]), dot(vs[0], vs[2])
			t.Logf("related %.3f unrelated %.3f", rel, unrel)
			assert.Greater(t, rel, unrel+0.1)
		})
	}
}

func TestEmbedHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Embed(ctx, []string{"a"})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestEmbedIntoAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	e := New()
	dst := make([]float32, Dims)
	text := benchChunk()
	e.EmbedInto(dst, text)
	allocs := testing.AllocsPerRun(100, func() { e.EmbedInto(dst, text) })
	assert.Zero(t, allocs)
}
