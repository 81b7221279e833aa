package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
)

// checkJSON refuses what encoding/json would accept but silently ignore or
// rewrite, or what PostgreSQL cannot store: anything after the value
// (`{"a":1} {"b":2}`, `{"a":1}garbage`) is 400 malformed_json; a string
// with bytes that are not UTF-8, or with the NUL character (U+0000, which
// no text or jsonb column holds), is 400 validation_failed naming the
// field, instead of being stored with replacement characters or failing
// as 500. field is the name the errors carry: "" for a request body (its
// pointers are "/name"), "metadata" for a form part ("metadata/brand").
func checkJSON(data []byte, field string) error {
	if !json.Valid(data) {
		name := field
		if name == "" {
			name = "body"
		}
		return &domain.Error{Code: domain.CodeMalformedJSON, Message: "The request body is not one valid JSON value.",
			Fields: []domain.FieldError{{Field: name, Message: "must be exactly one JSON value, with nothing after it"}}}
	}
	if !utf8.Valid(data) {
		at := int64(firstInvalidUTF8(data))
		p, _ := stringPointer(data, func(_ string, end int64) bool { return end > at })
		return invalidText(field+p, notUTF8)
	}
	if bytes.Contains(data, []byte(`\u0000`)) {
		if p, ok := stringPointer(data, func(s string, _ int64) bool { return strings.IndexByte(s, 0) >= 0 }); ok {
			return invalidText(field+p, holdsNUL)
		}
	}
	return nil
}

// Why a text value cannot be taken.
const (
	notUTF8  = "must be UTF-8 text (it holds bytes that are not)"
	holdsNUL = "must not hold the NUL character (U+0000)"
)

// invalidText is a refused text value; a body's own value is "body".
func invalidText(name, why string) error {
	if name == "" {
		name = "body"
	}
	return domain.Invalid(name, why)
}

// checkUTF8 refuses a text value (a query or path parameter, a form field)
// that is not UTF-8 or holds the NUL character.
func checkUTF8(field, value string) error {
	if !utf8.ValidString(value) {
		return domain.Invalid(field, notUTF8)
	}
	if strings.IndexByte(value, 0) >= 0 {
		return domain.Invalid(field, holdsNUL)
	}
	return nil
}

// jsonFrame is one open object or array while walking a JSON value.
type jsonFrame struct {
	object  bool
	wantKey bool
	key     string
	index   int
}

// stringPointer is the JSON pointer of the first string of data (a value,
// or the member whose key it is; "" for the top-level value) for which bad
// holds, given the decoded string and the input offset just past it; ok
// is false when there is none. data is valid JSON.
func stringPointer(data []byte, bad func(s string, end int64) bool) (p string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []jsonFrame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *jsonFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				stack = append(stack, jsonFrame{object: tok == '{', wantKey: tok == '{'})
			default:
				stack = stack[:len(stack)-1]
				advance(stack)
			}
			continue
		case string:
			key := top != nil && top.object && top.wantKey
			if key {
				top.key, top.wantKey = tok, false
			}
			if bad(tok, dec.InputOffset()) {
				return pointer(stack), true
			}
			if key {
				continue
			}
		}
		advance(stack)
	}
}

// advance moves the innermost container past the value just read.
func advance(stack []jsonFrame) {
	if len(stack) == 0 {
		return
	}
	top := &stack[len(stack)-1]
	if top.object {
		top.wantKey = true
	} else {
		top.index++
	}
}

// pointer renders the walk's position as an RFC 6901 JSON pointer.
func pointer(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		b.WriteByte('/')
		if f.object {
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(strings.ToValidUTF8(f.key, "\uFFFD")))
		} else {
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}

// firstInvalidUTF8 is the offset of the first byte that does not start a
// valid UTF-8 sequence.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}
