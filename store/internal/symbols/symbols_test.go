package symbols

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTableCountsAndRecycles(t *testing.T) {
	var tab Table
	a := tab.Acquire("a")
	b := tab.Acquire("b")
	assert.NotEqual(t, a, b)
	assert.Equal(t, a, tab.Acquire("a"))
	assert.Equal(t, uint32(2), tab.Refs(a))
	assert.Equal(t, "a", tab.Name(a))
	assert.Equal(t, 2, tab.Live())
	assert.Equal(t, 2, tab.Len())

	tab.Release(a)
	id, ok := tab.Lookup("a")
	assert.True(t, ok, "one reference left")
	assert.Equal(t, a, id)

	tab.Release(a)
	_, ok = tab.Lookup("a")
	assert.False(t, ok, "freed with the last reference")
	assert.Equal(t, uint32(0), tab.Refs(a))
	assert.Empty(t, tab.Name(a), "a free id lets its string go")
	assert.Equal(t, 1, tab.Live())

	// A freed id is handed out again before a new one.
	c := tab.Acquire("c")
	assert.Equal(t, a, c)
	assert.Equal(t, "c", tab.Name(c))
	assert.Equal(t, uint32(1), tab.Refs(c))
	assert.Equal(t, 2, tab.Len())
}

func TestTableClones(t *testing.T) {
	buf := []byte("xy")
	var tab Table
	id := tab.Acquire(string(buf[:1]))
	buf[0] = 'z'
	assert.Equal(t, "x", tab.Name(id))
}

// Bytes grows with the strings a table holds and gives their bytes back
// when they are freed.
func TestTableBytes(t *testing.T) {
	var tab Table
	assert.Zero(t, tab.Bytes())
	long := string(make([]byte, 1000))
	id := tab.Acquire(long)
	held := tab.Bytes()
	assert.GreaterOrEqual(t, held, int64(1000+MapEntryBytes))
	tab.Acquire(long)
	assert.Equal(t, held, tab.Bytes(), "a second reference holds nothing more")
	tab.Release(id)
	tab.Release(id)
	assert.Less(t, tab.Bytes(), int64(1000), "the freed string's bytes are given back")
}

func TestLookupAll(t *testing.T) {
	var tab Table
	assert.Nil(t, tab.LookupAll([]string{"a"}), "empty table")
	a, b := tab.Acquire("a"), tab.Acquire("b")
	assert.Equal(t, []uint32{b, a}, tab.LookupAll([]string{"b", "unknown", "a"}))
	assert.Nil(t, tab.LookupAll([]string{"unknown"}))
	assert.Nil(t, tab.LookupAll(nil))
}

func TestSet(t *testing.T) {
	s := NewSet([]uint32{0, 3, 64, 130})
	for id := range uint32(300) {
		want := id == 0 || id == 3 || id == 64 || id == 130
		require.Equal(t, want, s.Has(id), id)
	}
	one := NewSet([]uint32{5})
	assert.True(t, one.Has(5))
	assert.False(t, one.Has(1<<20), "beyond the bitmap")
}
