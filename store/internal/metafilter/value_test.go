package metafilter

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckAccepts(t *testing.T) {
	for name, v := range map[string]any{
		"nil":        nil,
		"string":     "x",
		"bool":       true,
		"time":       time.Now(),
		"strings":    []string{"a", "b"},
		"no strings": []string{},
		"JSON list":  []any{"a", "b"},
		"empty list": []any{},
		"float64":    1.5,
		"float32":    float32(1.5),
		"int":        -3,
		"int8":       int8(-3),
		"int16":      int16(-3),
		"int32":      int32(-3),
		"int64":      int64(-3),
		"uint":       uint(3),
		"uint8":      uint8(3),
		"uint16":     uint16(3),
		"uint32":     uint32(3),
		"uint64":     uint64(3),
		"infinity":   math.Inf(1),
	} {
		assert.NoError(t, Check("f", v), name)
	}
}

func TestCheckRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		field string
		v     any
		want  string
	}{
		"empty name":   {"", "x", "a metadata field has an empty name"},
		"empty name 2": {"", nil, "a metadata field has an empty name"},
		"mixed list":   {"f", []any{"a", 1.0}, `metadata field "f": an array may hold only strings, not float64`},
		"NaN":          {"f", math.NaN(), `metadata field "f" is NaN`},
		"NaN float32":  {"f", float32(math.NaN()), `metadata field "f" is NaN`},
		"map":          {"f", map[string]any{}, `metadata field "f" has unsupported type map[string]interface {} (want string, number, bool, time or string array)`},
		"numbers":      {"f", []float64{1}, `metadata field "f" has unsupported type []float64 (want string, number, bool, time or string array)`},
		"pointer":      {"f", new(string), `metadata field "f" has unsupported type *string (want string, number, bool, time or string array)`},
	} {
		err := Check(c.field, c.v)
		require.Error(t, err, name)
		assert.Equal(t, c.want, err.Error(), name)
	}
}

func TestConvert(t *testing.T) {
	at := time.Date(2024, 3, 4, 5, 6, 7, 123456789, time.UTC)
	strs := []string{"a", "b"}
	for name, c := range map[string]struct {
		v    any
		want Value
	}{
		"string":     {"x", Value{Kind: String, Str: "x"}},
		"strings":    {strs, Value{Kind: Strings, Strs: strs}},
		"JSON list":  {[]any{"a", "b"}, Value{Kind: Strings, Strs: []string{"a", "b"}}},
		"empty list": {[]any{}, Value{Kind: Strings, Strs: []string{}}},
		"true":       {true, Value{Kind: Bool, Key: 1}},
		"false":      {false, Value{Kind: Bool}},
		"time":       {at, Value{Kind: Time, Key: at.UnixMicro()}},
		"float64":    {2.5, Value{Kind: Number, Num: 2.5}},
		"int":        {7, Value{Kind: Number, Num: 7}},
		"uint8":      {uint8(7), Value{Kind: Number, Num: 7}},
		"float32":    {float32(0.5), Value{Kind: Number, Num: 0.5}},
		"nil":        {nil, Value{}},
		"unchecked":  {map[string]any{}, Value{}},
	} {
		assert.Equal(t, c.want, Convert(c.v), name)
	}
}

func TestTimeKey(t *testing.T) {
	at := time.Date(2024, 3, 4, 5, 6, 7, 123456789, time.UTC)
	// To the microsecond, whatever the location.
	assert.Equal(t, TimeKey(at), TimeKey(at.Truncate(time.Microsecond)))
	assert.Equal(t, TimeKey(at), TimeKey(at.In(time.FixedZone("x", 3600))))
	assert.Less(t, TimeKey(at), TimeKey(at.Add(time.Microsecond)))
	assert.Less(t, TimeKey(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)), TimeKey(at))
}

func TestClone(t *testing.T) {
	buf := []byte("phone,tablet")
	str := string(buf)
	v := Convert([]string{str[:5], str[6:]}).Clone()
	assert.Equal(t, []string{"phone", "tablet"}, v.Strs)
	s := Convert(str[:5]).Clone()
	assert.Equal(t, "phone", s.Str)
	n := Convert(3).Clone()
	assert.Equal(t, Value{Kind: Number, Num: 3}, n)

	// A clone shares no slice with its source.
	src := []string{"a"}
	c := Convert(src).Clone()
	src[0] = "b"
	assert.Equal(t, []string{"a"}, c.Strs)
}
