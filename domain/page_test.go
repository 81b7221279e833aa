package domain

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllCollectsEveryPage(t *testing.T) {
	items := make([]int, 450)
	for i := range items {
		items[i] = i
	}
	var calls []PageRequest
	list := func(p PageRequest) (Page[int], error) {
		calls = append(calls, p)
		from := 0
		if p.After != "" {
			n, err := strconv.Atoi(p.After)
			require.NoError(t, err, "After is the sort key, not the cursor")
			from = n + 1
		}
		to := min(from+p.Limit+1, len(items))
		// As the store does: fetch one more than the limit, PageOf cuts it
		// and encodes the cursor.
		return PageOf(items[from:to], p, func(i int) string { return strconv.Itoa(i) }), nil
	}
	got, err := All(list)
	require.NoError(t, err)
	assert.Equal(t, items, got, "nothing cut at a page size")
	assert.Len(t, calls, 3)
	assert.Equal(t, MaxPageSize, calls[0].Limit)

	boom := errors.New("down")
	_, err = All(func(PageRequest) (Page[int], error) { return Page[int]{}, boom })
	assert.Same(t, boom, err)
}
