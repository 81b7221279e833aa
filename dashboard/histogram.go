package dashboard

import (
	"math"
	"slices"
	"strconv"
)

// histogram is a distribution kept as buckets (the SQL's bucket numbers,
// ascending with the value), each with its count and the sum of its values.
type histogram map[int]*sum

// sum is a count and the total of the values counted.
type sum struct {
	n     int64
	total float64
}

func (s *sum) add(n int64, total float64) {
	s.n += n
	s.total += total
}

// add counts a fact whose key is a bucket number; another key is ignored
// (the SQL writes only numbers).
func (h histogram) add(key string, n int64, total float64) {
	b, err := strconv.Atoi(key)
	if err != nil {
		return
	}
	if h[b] == nil {
		h[b] = &sum{}
	}
	h[b].add(n, total)
}

// count and mean are over every value; mean is nil with none.
func (h histogram) count() int64 {
	var n int64
	for _, s := range h {
		n += s.n
	}
	return n
}

func (h histogram) mean() *float64 {
	var all sum
	for _, s := range h {
		all.add(s.n, s.total)
	}
	if all.n == 0 {
		return nil
	}
	return round4(all.total / float64(all.n))
}

// percentile is the nearest-rank p-th percentile (the value of rank
// ⌈p·N⌉, 1-based, in ascending order), read as the mean of the values in
// the bucket that holds that rank: within the bucket's width of the exact
// value, and exact when the bucket holds one distinct value. Nil with no
// values.
func (h histogram) percentile(p float64) *float64 {
	total := h.count()
	if total == 0 {
		return nil
	}
	rank := max(int64(math.Ceil(p*float64(total))), 1)
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var seen int64
	for _, k := range keys {
		s := h[k]
		if seen += s.n; seen >= rank && s.n > 0 {
			return round4(s.total / float64(s.n))
		}
	}
	return nil
}

// round4 rounds to four decimals (confidences are stored so; a latency to
// a tenth of a microsecond).
func round4(v float64) *float64 {
	r := math.Round(v*1e4) / 1e4
	return &r
}
