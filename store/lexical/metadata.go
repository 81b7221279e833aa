package lexical

import (
	"strings"

	"github.com/cs-assistant/assistant/store/internal/metafilter"
)

// maxFilterDepth bounds the nesting of And / Or (metafilter.Parse checks
// it; the vector index allows the same depth).
const maxFilterDepth = metafilter.MaxDepth

// convertMetadata checks m and returns it as values, copying the strings
// (they may point into a large buffer the index must not keep alive). The
// accepted types are those of metafilter.Check: those of
// domain.VectorRecord.Metadata, plus the other Go number types and []any
// of strings (what a JSON decoder produces); a nil value means the field
// is absent.
func convertMetadata(m map[string]any) (map[string]metafilter.Value, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]metafilter.Value, len(m))
	for field, v := range m {
		if err := metafilter.Check(field, v); err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		out[strings.Clone(field)] = metafilter.Convert(v).Clone()
	}
	return out, nil
}
