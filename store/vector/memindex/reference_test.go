package memindex

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
)

// The compiled column predicates of bind admit exactly the rows that the
// shared reference semantics, metafilter.Cond.Match, admits (the lexical
// index evaluates Match itself), over random metadata and random filters.
func TestFilterMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	strs := []string{"phone", "laptop", "tablet", "refund", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}
	times := []time.Time{base, base.Add(999 * time.Nanosecond), base.Add(time.Microsecond), base.Add(-time.Hour), base.In(time.FixedZone("x", 3600))}
	nums := []any{1, 2.5, int64(3), uint8(3), float32(2.5), -1.0}
	randString := func() string { return strs[rng.IntN(len(strs))] }
	randList := func() []string {
		l := make([]string, rng.IntN(4))
		for i := range l {
			l[i] = randString()
		}
		return l
	}
	randValue := func(field string) any {
		switch field {
		case "s":
			return randString()
		case "a":
			if rng.IntN(2) == 0 {
				return randList()
			}
			var l []any
			for _, s := range randList() {
				l = append(l, s)
			}
			return l
		case "n":
			return nums[rng.IntN(len(nums))]
		case "b":
			return rng.IntN(2) == 0
		}
		return times[rng.IntN(len(times))] // "t"
	}

	x := New(2)
	fields := []string{"s", "a", "n", "b", "t", "mix"}
	rows := map[string]map[string]metafilter.Value{}
	var recs []domain.VectorRecord
	for i := range 300 {
		id := fmt.Sprintf("c%03d", i)
		meta := map[string]any{}
		rows[id] = map[string]metafilter.Value{}
		for _, f := range fields {
			switch rng.IntN(5) {
			case 0: // absent
			case 1:
				meta[f] = nil // absent too
			default:
				kind := f
				if f == "mix" { // a field of another kind in each row
					kind = fields[rng.IntN(5)]
				}
				v := randValue(kind)
				meta[f] = v
				rows[id][f] = metafilter.Convert(v)
			}
		}
		recs = append(recs, domain.VectorRecord{ChunkID: id, Model: testModel, Vector: []float32{1, 0}, Metadata: meta})
	}
	require.NoError(t, x.Upsert("t1", recs))

	operand := func(op domain.FilterOp) any {
		switch op {
		case domain.OpIn, domain.OpNin:
			n := rng.IntN(11) // above 8 strings, the reference uses a set
			switch rng.IntN(3) {
			case 0:
				l := make([]string, n)
				for i := range l {
					l[i] = randString()
				}
				return l
			case 1:
				l := make([]float64, n)
				for i := range l {
					l[i], _ = metafilter.ToFloat(nums[rng.IntN(len(nums))])
				}
				return l
			}
			l := make([]any, n)
			for i := range l {
				l[i] = randString()
			}
			return l
		case domain.OpEq, domain.OpNe:
			return randValue([]string{"s", "n", "b", "t"}[rng.IntN(4)])
		}
		if rng.IntN(2) == 0 {
			return times[rng.IntN(len(times))]
		}
		return nums[rng.IntN(len(nums))]
	}
	ops := []domain.FilterOp{domain.OpEq, domain.OpNe, domain.OpIn, domain.OpNin, domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte}
	var randFilter func(depth int) domain.Filter
	randFilter = func(depth int) domain.Filter {
		if depth < 3 && rng.IntN(3) == 0 {
			parts := make([]domain.Filter, 1+rng.IntN(3))
			for i := range parts {
				parts[i] = randFilter(depth + 1)
			}
			if rng.IntN(2) == 0 {
				return domain.Filter{And: parts}
			}
			return domain.Filter{Or: parts}
		}
		op := ops[rng.IntN(len(ops))]
		field := append(fields, "missing")[rng.IntN(len(fields)+1)]
		return domain.Filter{Field: field, Op: op, Value: operand(op)}
	}

	for i := range 2000 {
		f := randFilter(0)
		cond, err := metafilter.Parse(&f)
		require.NoError(t, err, "%+v", f)
		want := []string{}
		for id, meta := range rows {
			if cond.Match(meta) {
				want = append(want, id)
			}
		}
		sort.Strings(want)
		got := ids(search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, TopK: MaxTopK, Filter: &f}))
		sort.Strings(got)
		require.Equal(t, want, got, "filter %d: %+v", i, f)
	}
}
