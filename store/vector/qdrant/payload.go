package qdrant

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/store/internal/metafilter"
)

// chunkPrefix starts every chunk id the service makes ("chk_" + 32 hex).
const chunkPrefix = "chk_"

// PointID returns the Qdrant point id (a UUID) of a chunk. A chunk id of
// the service's form, "chk_" and 32 hex digits, is those digits as a UUID,
// so the id is readable back to the chunk; any other id is hashed into a
// UUID. Either way the same chunk always gets the same point, which is
// what makes an upsert replace. The id does not include the tenant:
// chunk ids are random and made by the service, so no two tenants share
// one (if they did, the later upsert would take the point over).
func PointID(chunkID string) string {
	if h, ok := strings.CutPrefix(chunkID, chunkPrefix); ok && len(h) == 32 && isHex(h) {
		h = strings.ToLower(h)
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	}
	sum := sha256.Sum256([]byte(chunkID))
	b := sum[:16]
	// Version 8 (custom) and the RFC 4122 variant mark it as made here.
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// metaKey is the payload key of metadata field key. Plain keys (letters,
// digits, '_': every key the API allows) become "m_<key>"; any other key
// would be read by Qdrant as a JSON path ("a.b", "a[]"), so it becomes
// "mx_<hex of key>", which no plain key can collide with.
func metaKey(key string) string {
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return "mx_" + hex.EncodeToString([]byte(key))
		}
	}
	return "m_" + key
}

// timeLayout writes times as RFC 3339 in UTC to the microsecond, the
// precision at which Qdrant (and memindex) compare them.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

// formatTime is t as a payload string.
func formatTime(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(timeLayout)
}

// metaValue converts one metadata value to a payload value; nil means the
// field is absent. The accepted types are those memindex and the lexical
// index accept (metafilter.Check: string, any Go number, bool, time.Time,
// []string and []any of strings), except that a number must be finite.
func metaValue(field string, v any) (*qc.Value, error) {
	if err := metafilter.Check(field, v); err != nil {
		return nil, err
	}
	if t, ok := v.(time.Time); ok {
		return qc.NewValueString(formatTime(t)), nil
	}
	val := metafilter.Convert(v)
	switch val.Kind {
	case metafilter.String:
		return qc.NewValueString(val.Str), nil
	case metafilter.Strings:
		vals := make([]*qc.Value, len(val.Strs))
		for i, s := range val.Strs {
			vals[i] = qc.NewValueString(s)
		}
		return qc.NewValueFromList(vals...), nil
	case metafilter.Bool:
		return qc.NewValueBool(val.Key == 1), nil
	case metafilter.Number:
		if math.IsInf(val.Num, 0) {
			// Qdrant keeps payloads as JSON, which has no infinity (nor
			// NaN, which Check refuses).
			return nil, fmt.Errorf("metadata field %q is not a finite number", field)
		}
		return qc.NewValueDouble(val.Num), nil
	}
	return nil, nil
}

// payloadString reads a string field of a returned payload.
func payloadString(p map[string]*qc.Value, key string) string {
	return p[key].GetStringValue()
}
