package memindex

import (
	"math"

	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// kind is the type of one metadata value.
type kind = metafilter.Kind

// Metadata value kinds; kindMissing marks a row without the field.
const (
	kindMissing = metafilter.Missing
	kindString  = metafilter.String
	kindStrings = metafilter.Strings
	kindNumber  = metafilter.Number
	kindBool    = metafilter.Bool
	kindTime    = metafilter.Time
)

// column holds one metadata field for every row of a shard, as parallel
// arrays, so a filter reads a byte and a word per row instead of looking
// the field up in a map.
type column struct {
	kinds []kind
	// vals holds the value of each row by kind: a string's symbol, a
	// number's float64 bits, a bool or time's metafilter key (0 or 1, Unix
	// microseconds).
	vals []uint64
	// lists holds string arrays as symbols; nil until a row has one.
	lists [][]uint32
	// present counts the rows that have the field; the column is dropped
	// when it reaches zero.
	present int
	// listElems counts the symbols in lists, for bytes.
	listElems int
}

// newColumn returns a column for n rows, none of which has the field.
func newColumn(n int) *column {
	return &column{kinds: make([]kind, n, max(n, 8)), vals: make([]uint64, n, max(n, 8))}
}

// setCell stores v (accepted by metafilter.Check, not nil) as row r's
// value of column c, interning strings in syms.
func setCell(c *column, r int, v any, syms *symbols.Table) {
	val := metafilter.Convert(v)
	switch val.Kind {
	case kindString:
		c.vals[r] = uint64(syms.Acquire(val.Str))
	case kindStrings:
		ids := make([]uint32, len(val.Strs))
		for i, s := range val.Strs {
			ids[i] = syms.Acquire(s)
		}
		c.setList(r, ids)
	case kindNumber:
		c.vals[r] = math.Float64bits(val.Num)
	default: // bool and time: their key
		c.vals[r] = uint64(val.Key)
	}
	c.kinds[r] = val.Kind
	c.present++
}

// setList stores a string array in row r.
func (c *column) setList(r int, ids []uint32) {
	if c.lists == nil {
		c.lists = make([][]uint32, len(c.kinds), cap(c.kinds))
	}
	c.kinds[r], c.lists[r] = kindStrings, ids
	c.listElems += len(ids)
}

// clearCell removes row r's value, releasing its symbols.
func clearCell(c *column, r int, syms *symbols.Table) {
	switch c.kinds[r] {
	case kindMissing:
		return
	case kindString:
		syms.Release(uint32(c.vals[r]))
	case kindStrings:
		for _, id := range c.lists[r] {
			syms.Release(id)
		}
		c.listElems -= len(c.lists[r])
		c.lists[r] = nil
	}
	c.kinds[r], c.vals[r] = kindMissing, 0
	c.present--
}

// appendRow adds a row without the field.
func (c *column) appendRow() {
	c.kinds = append(c.kinds, kindMissing)
	c.vals = append(c.vals, 0)
	if c.lists != nil {
		c.lists = append(c.lists, nil)
	}
}

// moveRow copies row from into row to (which must have been cleared).
func (c *column) moveRow(from, to int) {
	c.kinds[to], c.vals[to] = c.kinds[from], c.vals[from]
	if c.lists != nil {
		c.lists[to] = c.lists[from]
	}
}

// truncate keeps the first n rows.
func (c *column) truncate(n int) {
	c.kinds, c.vals = c.kinds[:n], c.vals[:n]
	if c.lists != nil {
		clear(c.lists[n:])
		c.lists = c.lists[:n]
	}
}
