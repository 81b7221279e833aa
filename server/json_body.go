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
// rewrite: anything after the value (`{"a":1} {"b":2}`, `{"a":1}garbage`)
// is 400 malformed_json, and a string with bytes that are not UTF-8 is 400
// validation_failed naming the field, instead of being stored with
// replacement characters. field is the name the errors carry: "" for a
// request body (its pointers are "/name"), "metadata" for a form part
// ("metadata/brand").
func checkJSON(data []byte, field string) error {
	if !json.Valid(data) {
		name := field
		if name == "" {
			name = "body"
		}
		return &domain.Error{Code: domain.CodeMalformedJSON, Message: "The request body is not one valid JSON value.",
			Fields: []domain.FieldError{{Field: name, Message: "must be exactly one JSON value, with nothing after it"}}}
	}
	if utf8.Valid(data) {
		return nil
	}
	name := field + invalidUTF8Pointer(data)
	if name == "" {
		name = "body"
	}
	return domain.Invalid(name, "must be UTF-8 text (it holds bytes that are not)")
}

// checkUTF8 refuses a text value (a query parameter, a form field) that is
// not UTF-8.
func checkUTF8(field, value string) error {
	if utf8.ValidString(value) {
		return nil
	}
	return domain.Invalid(field, "must be UTF-8 text (it holds bytes that are not)")
}

// jsonFrame is one open object or array while walking a JSON value.
type jsonFrame struct {
	object  bool
	wantKey bool
	key     string
	index   int
}

// invalidUTF8Pointer is the JSON pointer of the first string that holds a
// byte that is not UTF-8 (the value, or the member whose key it is), ""
// when it is the top-level value. data is valid JSON.
func invalidUTF8Pointer(data []byte) string {
	bad := firstInvalidUTF8(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []jsonFrame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		past := dec.InputOffset() > int64(bad)
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
			if top != nil && top.object && top.wantKey {
				top.key, top.wantKey = tok, false
				if past {
					return pointer(stack)
				}
				continue
			}
		}
		if past {
			return pointer(stack)
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
