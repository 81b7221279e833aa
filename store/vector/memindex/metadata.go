package memindex

import (
	"fmt"
	"math"
	"time"
)

// kind is the type of one metadata value.
type kind uint8

// Metadata value kinds; kindMissing marks a row without the field.
const (
	kindMissing kind = iota
	kindString
	kindStrings
	kindNumber
	kindBool
	kindTime
)

// column holds one metadata field for every row of a shard, as parallel
// arrays, so a filter reads a byte and a word per row instead of looking
// the field up in a map.
type column struct {
	kinds []kind
	// vals holds the value of each row by kind: a string's symbol, a
	// number's float64 bits, a bool as 0 or 1, a time in Unix
	// microseconds.
	vals []uint64
	// lists holds string arrays as symbols; nil until a row has one.
	lists [][]uint32
	// present counts the rows that have the field; the column is dropped
	// when it reaches zero.
	present int
}

// newColumn returns a column for n rows, none of which has the field.
func newColumn(n int) *column {
	return &column{kinds: make([]kind, n, max(n, 8)), vals: make([]uint64, n, max(n, 8))}
}

// checkMetadata reports a metadata value the index cannot filter on. The
// accepted types are those of domain.VectorRecord.Metadata, plus the other
// Go number types and []any of strings (what a JSON decoder produces);
// nil means the field is absent.
func checkMetadata(field string, v any) error {
	if field == "" {
		return fmt.Errorf("a metadata field has an empty name")
	}
	switch v := v.(type) {
	case nil, string, bool, time.Time, []string:
		return nil
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("metadata field %q: an array may hold only strings, not %T", field, e)
			}
		}
		return nil
	}
	if f, ok := toFloat(v); ok {
		if math.IsNaN(f) {
			return fmt.Errorf("metadata field %q is NaN", field)
		}
		return nil
	}
	return fmt.Errorf("metadata field %q has unsupported type %T (want string, number, bool, time or string array)", field, v)
}

// toFloat converts any Go number to float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}

// timeKey is how times are stored and compared: Unix microseconds, which
// order like the times themselves (to the microsecond) for any date within
// ±290,000 years.
func timeKey(t time.Time) uint64 { return uint64(t.UnixMicro()) }

// setCell stores v (checked by checkMetadata, not nil) as row r's value of
// column c, interning strings in syms.
func setCell(c *column, r int, v any, syms *symtab) {
	switch v := v.(type) {
	case string:
		c.kinds[r], c.vals[r] = kindString, uint64(syms.acquire(v))
	case []string:
		ids := make([]uint32, len(v))
		for i, s := range v {
			ids[i] = syms.acquire(s)
		}
		c.setList(r, ids)
	case []any:
		ids := make([]uint32, len(v))
		for i, s := range v {
			ids[i] = syms.acquire(s.(string))
		}
		c.setList(r, ids)
	case bool:
		c.kinds[r], c.vals[r] = kindBool, 0
		if v {
			c.vals[r] = 1
		}
	case time.Time:
		c.kinds[r], c.vals[r] = kindTime, timeKey(v)
	default:
		f, _ := toFloat(v)
		c.kinds[r], c.vals[r] = kindNumber, math.Float64bits(f)
	}
	c.present++
}

// setList stores a string array in row r.
func (c *column) setList(r int, ids []uint32) {
	if c.lists == nil {
		c.lists = make([][]uint32, len(c.kinds), cap(c.kinds))
	}
	c.kinds[r], c.lists[r] = kindStrings, ids
}

// clearCell removes row r's value, releasing its symbols.
func clearCell(c *column, r int, syms *symtab) {
	switch c.kinds[r] {
	case kindMissing:
		return
	case kindString:
		syms.release(uint32(c.vals[r]))
	case kindStrings:
		for _, id := range c.lists[r] {
			syms.release(id)
		}
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
