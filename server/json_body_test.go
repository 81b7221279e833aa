package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

func TestCheckJSON(t *testing.T) {
	cases := []struct {
		body, code, field string
	}{
		{`{"a":1}`, "", ""},
		{"{\"a\":1}\n ", "", ""},
		{`{"a":1} {"b":2}`, "malformed_json", "body"},
		{`{"a":1}x`, "malformed_json", "body"},
		{`[1,2]]`, "malformed_json", "body"},
		{"{\"a\":\"\xff\"}", "validation_failed", "/a"},
		{"{\"a\":{\"b/c\":[1,{\"d~\":\"\xe9\"}]}}", "validation_failed", "/a/b~1c/1/d~0"},
		{"{\"a\":[\"ok\",\"ok\",\"\xc3\"],\"z\":\"ok\"}", "validation_failed", "/a/2"},
		{"{\"k\xff\":1}", "validation_failed", "/k\uFFFD"},
		{"\"\xff\"", "validation_failed", "body"},
		{"{\"a\":\"é\",\"b\":\"\xff\"}", "validation_failed", "/b"},
		// The NUL character, which PostgreSQL's text and jsonb cannot hold.
		{`{"a":"x\u0000y"}`, "validation_failed", "/a"},
		{`{"a":{"b":["ok","\u0000"]}}`, "validation_failed", "/a/b/1"},
		{`{"k\u0000":1}`, "validation_failed", "/k\x00"},
		{`"\u0000"`, "validation_failed", "body"},
		{`{"a":"\\u0000 is how JSON writes NUL"}`, "", ""}, // an escaped backslash, then text
	}
	for _, c := range cases {
		err := checkJSON([]byte(c.body), "")
		if c.code == "" {
			assert.NoError(t, err, "%q", c.body)
			continue
		}
		de, ok := err.(*domain.Error)
		if assert.True(t, ok, "%q: %v", c.body, err) {
			assert.Equal(t, domain.ErrorCode(c.code), de.Code, "%q", c.body)
			assert.Equal(t, c.field, de.Fields[0].Field, "%q", c.body)
		}
	}
	err := checkJSON([]byte("{\"brand\":\"\xff\"}"), "metadata")
	assert.Equal(t, "metadata/brand", err.(*domain.Error).Fields[0].Field)
	err = checkJSON([]byte(`{"a":"x\u0000"}`), "")
	assert.Equal(t, "must not hold the NUL character (U+0000)", err.(*domain.Error).Fields[0].Message)
	assert.Error(t, checkUTF8("query.q", "a\x00b"))
	assert.NoError(t, checkUTF8("query.q", "ab"))
}

func TestPlainErrorStatus(t *testing.T) {
	status, ok := plainErrorStatus([]byte("HTTP/1.1 431 Request Header Fields Too Large" + plainErrorHeaders + "431 Request Header Fields Too Large"))
	assert.True(t, ok)
	assert.Equal(t, 431, status)
	_, ok = plainErrorStatus([]byte("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nDate: x\r\n\r\nhi"))
	assert.False(t, ok, "a handler's response is never rewritten")
	_, ok = plainErrorStatus([]byte("HTTP/1.1 4"))
	assert.False(t, ok)
}

func TestWithoutPatternAcrossWrites(t *testing.T) {
	var out strings.Builder
	w := &withoutPattern{pattern: []byte("XYZ"), out: &out}
	for _, p := range []string{"abXY", "Zcd", "X", "YZe", "XY"} {
		n, err := w.Write([]byte(p))
		assert.NoError(t, err)
		assert.Equal(t, len(p), n)
	}
	w.flush()
	assert.Equal(t, "abcdeXY", out.String())
}
