package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// A JSON body is exactly one value: anything after it is malformed_json,
// and nothing is created.
func TestTrailingDataAfterAJSONBodyIsRefused(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{`{"name":"first"} {"name":"second"}`, `{"name":"third"}garbage`, "{\"name\":\"fourth\"}\n]"} {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", body, r.Body)
		assert.Equal(t, "malformed_json", r.Code(t), body)
	}
	// Whitespace after the value is still fine.
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: "{\"name\":\"fine\"}\n\t "})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)

	list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme"}).JSON(t)["items"].([]any)
	require.Len(t, list, 1, "only the well-formed request created a knowledge base")
	assert.Equal(t, "fine", list[0].(map[string]any)["name"])

	t.Run("the metadata part of an upload", func(t *testing.T) {
		kb := list[0].(map[string]any)["id"].(string)
		up := e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line\n"), metadata: `{"brand":"x"} {"brand":"y"}`})
		require.Equal(t, http.StatusBadRequest, up.Status, "%s", up.Body)
		assert.Equal(t, "malformed_json", up.Code(t))
		assert.Contains(t, fieldErrors(t, up), "metadata")
	})
}

// Text that is not UTF-8 is refused, naming the field, in bodies, nested
// values, keys, query parameters and form fields; nothing is stored.
func TestTextThatIsNotUTF8IsRefusedNamingTheField(t *testing.T) {
	e := newEnv(t)
	cases := map[string]string{
		"{\"name\":\"\xff\xfe\"}":                                       "/name",
		"{\"name\":\"ok\",\"description\":\"caf\xe9\"}":                 "/description",
		"{\"name\":\"ok\",\"metadataSchema\":{\"a\":[\"x\",\"\xc3\"]}}": "/metadataSchema/a/1",
		"{\"name\":\"ok\",\"d\xff\":1}":                                 "/d\uFFFD",
	}
	for body, field := range cases {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: body})
		require.Equal(t, http.StatusBadRequest, r.Status, "%q: %s", body, r.Body)
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Contains(t, fieldErrors(t, r), field, "%q", body)
	}
	list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme"}).JSON(t)["items"].([]any)
	assert.Empty(t, list, "nothing was stored with replacement characters")

	r := e.do(req{method: "GET", path: "/api/v1/admin/api-keys?tenantId=%FF%FE", tenant: "acme"})
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	assert.Contains(t, fieldErrors(t, r), "query.tenantId")

	kb := e.createKB("", "acme", "support")["id"].(string)
	up := e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line\n"), fileName: "r\xe9sum\xe9.txt"})
	require.Equal(t, http.StatusBadRequest, up.Status, "%s", up.Body)
	assert.Contains(t, fieldErrors(t, up), "fileName")
	up = e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line\n"), metadata: "{\"brand\":\"\xff\"}"})
	require.Equal(t, http.StatusBadRequest, up.Status, "%s", up.Body)
	assert.Contains(t, fieldErrors(t, up), "metadata/brand")
	// UTF-8 text in any script is of course fine.
	up = e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line\n"), fileName: "退款说明.txt"})
	require.Equal(t, http.StatusAccepted, up.Status, "%s", up.Body)
}

// The NUL character (U+0000) is valid UTF-8 and valid JSON, but no text or
// jsonb column of PostgreSQL holds it: it is refused as bad input, naming
// the field, in a customer's message, a slot, a name, a query or path
// parameter, where it used to reach the database and come back as 500.
func TestTheNULCharacterIsRefusedNamingTheField(t *testing.T) {
	e := newEnv(t)
	c := e.newChat("acme", nil)
	refused := func(r response, field string) {
		t.Helper()
		require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Contains(t, fieldErrors(t, r), field)
	}
	refused(e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": "hello\u0000world"}}), "/message")
	refused(e.do(req{method: "PUT", path: c.path("/slots"), tenant: "acme", body: map[string]any{"slots": map[string]any{"product": "x\u0000y"}}}), "/slots/product")
	refused(e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: map[string]any{"name": "a\u0000b"}}), "/name")
	refused(e.do(req{method: "GET", path: "/api/v1/admin/conversations?q=a%00b", tenant: "acme"}), "query.q")
	refused(e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases/kb_a%00b", tenant: "acme"}), "path.kbId")

	// The idempotency key's scope is stored before the path is validated:
	// an id with NUL or a byte that is not UTF-8 is still the 400 it is
	// without the header.
	for _, path := range []string{"/api/v1/chat/sessions/%00%ff/messages", "/api/v1/chat/sessions/ses_" + strings.Repeat("a", 3000) + "/messages"} {
		r := e.do(req{method: "POST", path: path, tenant: "acme", header: map[string]string{"Idempotency-Key": "k-1"},
			body: map[string]any{"message": "hello"}})
		require.Equal(t, http.StatusBadRequest, r.Status, "%.80s: %s", path, r.Body)
	}
	assert.Empty(t, c.messages(t), "the message was not stored")
	list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme"}).JSON(t)["items"].([]any)
	assert.Empty(t, list)
	r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": "hello world"}})
	assert.Equal(t, http.StatusOK, r.Status, "the session works on: %s", r.Body)
}

// rawExchange writes a raw request on a new connection and reads the
// answer, as a client that does not speak HTTP properly would.
func rawExchange(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, body
}

// rawProblemCode checks a raw answer is a problem and returns its code.
func rawProblemCode(t *testing.T, res *http.Response, body []byte) string {
	t.Helper()
	require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), "%s", body)
	var p map[string]any
	require.NoError(t, json.Unmarshal(body, &p), "%s", body)
	assert.EqualValues(t, res.StatusCode, p["status"])
	assert.NotEmpty(t, p["requestId"])
	assert.Equal(t, res.Header.Get("X-Request-Id"), p["requestId"])
	return p["code"].(string)
}

// What net/http answers on its own, before any handler, is problem+json.
func TestErrorsBeforeAnyHandlerAreProblems(t *testing.T) {
	e := newEnv(t)
	addr, _, _ := serveOnLoopback(t, e)

	huge := "GET /api/v1/admin/kb/knowledge-bases HTTP/1.1\r\nHost: x\r\nX-Junk: " + strings.Repeat("a", 100<<10) + "\r\n\r\n"
	res, body := rawExchange(t, addr, huge)
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode)
	assert.Equal(t, "header_too_large", rawProblemCode(t, res, body))

	res, body = rawExchange(t, addr, "NONSENSE\r\n\r\n")
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Equal(t, "malformed_request", rawProblemCode(t, res, body))

	res, body = rawExchange(t, addr, "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n")
	assert.Equal(t, http.StatusNotImplemented, res.StatusCode)
	assert.Equal(t, "malformed_request", rawProblemCode(t, res, body))

	// A well-formed request on the same listener is untouched.
	ok, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	ok.Body.Close()
	assert.Equal(t, http.StatusOK, ok.StatusCode)
}

// A body that never finishes is answered 408 once its deadline passes,
// instead of holding the connection; a long answer after a body read in
// time is never cut by that deadline.
func TestABodyHasADeadlineAndALongAnswerDoesNot(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.BodyReadTimeout = time.Second })
	addr, _, _ := serveOnLoopback(t, e)

	start := time.Now()
	slow := fmt.Sprintf("POST /api/v1/admin/kb/knowledge-bases HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\nX-Tenant-Id: acme\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":", e.root)
	res, body := rawExchange(t, addr, slow)
	assert.Equal(t, http.StatusRequestTimeout, res.StatusCode, "%s", body)
	assert.Equal(t, "request_timeout", rawProblemCode(t, res, body))
	assert.Less(t, time.Since(start), 15*time.Second, "answered soon after the 1 s deadline, not held open")

	// A streamed reply that takes longer than the body deadline runs to
	// its end.
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	useModel(t, e, "acme", fakeStreamingModel(t, 400*time.Millisecond, "Refunds take ", "three working ", "days ", "to arrive ", "[1].").URL)
	e.srv.URL = "http://" + addr
	c := e.newChat("acme", nil)
	events := c.stream(t, covered, nil)
	require.NotEmpty(t, events)
	assert.Equal(t, "done", events[len(events)-1].name, "the stream ran past the 1 s body deadline to its end")
	assert.Equal(t, "Refunds take three working days to arrive [1].", deltas(events), "every piece of the model's answer arrived")
	msgs := e.do(req{method: "GET", path: c.path("/messages"), tenant: "acme"}).JSON(t)["items"].([]any)
	require.Len(t, msgs, 2)
	assert.Equal(t, "complete", msgs[1].(map[string]any)["status"], "the stored reply is whole")
}
