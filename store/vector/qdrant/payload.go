package qdrant

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
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
// field is absent. The accepted types are those memindex accepts: string,
// any finite Go number, bool, time.Time, []string and []any of strings.
func metaValue(field string, v any) (*qc.Value, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return qc.NewValueString(v), nil
	case bool:
		return qc.NewValueBool(v), nil
	case time.Time:
		return qc.NewValueString(formatTime(v)), nil
	case []string:
		vals := make([]*qc.Value, len(v))
		for i, s := range v {
			vals[i] = qc.NewValueString(s)
		}
		return qc.NewValueFromList(vals...), nil
	case []any:
		vals := make([]*qc.Value, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("metadata field %q: an array may hold only strings, not %T", field, e)
			}
			vals[i] = qc.NewValueString(s)
		}
		return qc.NewValueFromList(vals...), nil
	}
	n, ok := toFloat(v)
	if !ok {
		return nil, fmt.Errorf("metadata field %q has unsupported type %T (want string, number, bool, time or string array)", field, v)
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		// Qdrant keeps payloads as JSON, which has neither.
		return nil, fmt.Errorf("metadata field %q is not a finite number", field)
	}
	return qc.NewValueDouble(n), nil
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

// payloadString reads a string field of a returned payload.
func payloadString(p map[string]*qc.Value, key string) string {
	return p[key].GetStringValue()
}
