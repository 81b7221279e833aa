package qdrant

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// TestRandomSearchesMatchMemindex writes random records of two tenants,
// two models and three knowledge bases with random metadata (missing
// fields, arrays, a field of mixed types), then runs random searches with
// random nested filters through the adapter and compares every answer
// with memindex's (env.search does).
func TestRandomSearchesMatchMemindex(t *testing.T) {
	e := newEnv(t)
	r := rand.New(rand.NewPCG(7, 11))
	g := gen{r: r}
	tenants := []domain.TenantID{"t1", "t2"}
	for i := 1; i <= 300; i++ {
		rec := domain.VectorRecord{
			ChunkID:    chunk(i),
			KBID:       fmt.Sprintf("kb%d", r.IntN(3)),
			DocumentID: fmt.Sprintf("doc%d", r.IntN(20)),
			Model:      fmt.Sprintf("m%d", r.IntN(2)),
			Vector:     g.vector(),
			Metadata:   g.metadata(),
		}
		e.upsert(tenants[r.IntN(2)], rec)
	}
	withHits, filtered := 0, 0
	for i := range 400 {
		q := domain.VectorQuery{Vector: g.vector(), Model: fmt.Sprintf("m%d", r.IntN(2)), TopK: 1 + r.IntN(60)}
		if r.IntN(3) == 0 {
			q.MinScore = r.Float32()*0.6 - 0.2
		}
		if r.IntN(3) == 0 {
			q.KBIDs = []string{fmt.Sprintf("kb%d", r.IntN(4))}
		}
		if r.IntN(8) != 0 {
			f := g.filter(0)
			q.Filter = &f
		}
		tenant := tenants[r.IntN(2)]
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sub := *e
			sub.t = t
			if hits := sub.search(tenant, q); len(hits) > 0 {
				withHits++
				if q.Filter != nil {
					filtered++
				}
			}
		})
	}
	// Not vacuous: most searches find something, filtered ones too.
	t.Logf("%d of 400 searches had hits, %d of them filtered", withHits, filtered)
	if withHits < 150 || filtered < 80 {
		t.Errorf("too few searches with hits (%d, %d filtered): the generator needs tuning", withHits, filtered)
	}
}

// gen makes random vectors, metadata and filters over small value sets,
// so that filters often match.
type gen struct{ r *rand.Rand }

var (
	genStrings = []string{"a", "b", "c", "d"}
	genNumbers = []float64{-1, 0, 1.5, 2, 10}
	genTimes   = []time.Time{day(2024, 1, 1), day(2024, 1, 1).Add(1500 * time.Nanosecond), day(2024, 6, 1), day(2025, 1, 1)}
)

func (g gen) vector() []float32 {
	v := make([]float32, testDims)
	for i := range v {
		v[i] = g.r.Float32()*2 - 0.5 // mostly positive: many hits pass MinScore 0
	}
	return v
}

func (g gen) metadata() map[string]any {
	m := map[string]any{}
	maybe := func(key string, v func() any) {
		if g.r.IntN(4) != 0 {
			m[key] = v()
		}
	}
	maybe("s", func() any { return genStrings[g.r.IntN(len(genStrings))] })
	maybe("arr", func() any {
		n := g.r.IntN(3)
		out := []string{}
		for range n {
			out = append(out, genStrings[g.r.IntN(len(genStrings))])
		}
		return out
	})
	maybe("n", func() any { return genNumbers[g.r.IntN(len(genNumbers))] })
	maybe("b", func() any { return g.r.IntN(2) == 0 })
	maybe("t", func() any { return genTimes[g.r.IntN(len(genTimes))] })
	maybe("mixed", func() any {
		switch g.r.IntN(3) {
		case 0:
			return genStrings[g.r.IntN(len(genStrings))]
		case 1:
			return genNumbers[g.r.IntN(len(genNumbers))]
		}
		return g.r.IntN(2) == 0
	})
	return m
}

// filter is a random filter; combinations grow rarer with depth.
func (g gen) filter(depth int) domain.Filter {
	if depth < 3 && g.r.IntN(3) == 0 {
		n := 1 + g.r.IntN(3)
		parts := make([]domain.Filter, n)
		for i := range parts {
			parts[i] = g.filter(depth + 1)
		}
		if g.r.IntN(2) == 0 {
			return domain.Filter{And: parts}
		}
		return domain.Filter{Or: parts}
	}
	fields := []string{"s", "arr", "n", "b", "t", "mixed", "absent"}
	field := fields[g.r.IntN(len(fields))]
	ops := []domain.FilterOp{domain.OpEq, domain.OpNe, domain.OpIn, domain.OpNin, domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte}
	o := ops[g.r.IntN(len(ops))]
	return domain.Filter{Field: field, Op: o, Value: g.value(o)}
}

// value is a random operand for o, of any type the operator takes.
func (g gen) value(o domain.FilterOp) any {
	switch o {
	case domain.OpIn, domain.OpNin:
		n := g.r.IntN(3) // sometimes empty
		if g.r.IntN(2) == 0 {
			out := []string{}
			for range n {
				out = append(out, genStrings[g.r.IntN(len(genStrings))])
			}
			return out
		}
		out := []float64{}
		for range n {
			out = append(out, genNumbers[g.r.IntN(len(genNumbers))])
		}
		return out
	case domain.OpEq, domain.OpNe:
		switch g.r.IntN(4) {
		case 0:
			return genStrings[g.r.IntN(len(genStrings))]
		case 1:
			return genNumbers[g.r.IntN(len(genNumbers))]
		case 2:
			return g.r.IntN(2) == 0
		}
		return genTimes[g.r.IntN(len(genTimes))]
	}
	if g.r.IntN(2) == 0 {
		return genNumbers[g.r.IntN(len(genNumbers))]
	}
	return genTimes[g.r.IntN(len(genTimes))]
}
