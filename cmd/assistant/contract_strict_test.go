package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/openapi"
)

// strictContract reads the contract as a strict OpenAPI 3.0.3 tool does
// (Prism, openapi-typescript, a contract tester) and unlike kin-openapi,
// which is lenient: `nullable: true` widens only the `type` beside it, so
// a null is valid only where a schema says so itself, never through an
// allOf or $ref next to it, and an enum must list null to allow it. The
// contract is converted to JSON Schema 2020-12 on that reading and each
// response body validated against it.
type strictContract struct {
	compiler *jsonschema.Compiler
	doc      map[string]any
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
}

// loadStrictContract is built once per test binary: it is read-only after.
var loadStrictContract = sync.OnceValues(func() (*strictContract, error) {
	spec, err := openapi3.NewLoader().LoadFromData(openapi.Spec())
	if err != nil {
		return nil, err
	}
	data, err := spec.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	strictNullable(doc)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("contract.json", doc); err != nil {
		return nil, err
	}
	return &strictContract{compiler: c, doc: doc, schemas: map[string]*jsonschema.Schema{}}, nil
})

// strictNullable rewrites every `nullable: true` the strict way: "null" is
// added to the schema's own type, and nothing else changes.
func strictNullable(node any) {
	switch n := node.(type) {
	case map[string]any:
		if n["nullable"] == true {
			if t, ok := n["type"].(string); ok {
				n["type"] = []any{t, "null"}
			}
		}
		delete(n, "nullable")
		for _, v := range n {
			strictNullable(v)
		}
	case []any:
		for _, v := range n {
			strictNullable(v)
		}
	}
}

// validate checks a JSON response of route against the strict reading.
func (s *strictContract) validate(route *routers.Route, status int, header http.Header, body []byte) error {
	mt, _, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && mt != "application/problem+json") || len(body) == 0 {
		return nil // streams, files and empty bodies: kin-openapi's check stands
	}
	ptr, ok := s.responseSchema(route, status, mt)
	if !ok {
		return nil
	}
	sch, err := s.schema(ptr)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// responseSchema is the JSON pointer of the schema of route's answer with
// this status and media type, following a response $ref.
func (s *strictContract) responseSchema(route *routers.Route, status int, mt string) (string, bool) {
	base := "/paths/" + escapePointer(route.Path) + "/" + strings.ToLower(route.Method) + "/responses/"
	code := strconv.Itoa(status)
	if lookup(s.doc, base+code) == nil {
		code = "default"
	}
	ptr := base + code
	if ref, ok := lookup(s.doc, ptr+"/$ref").(string); ok {
		ptr = strings.TrimPrefix(ref, "#")
	}
	ptr += "/content/" + escapePointer(mt) + "/schema"
	return ptr, lookup(s.doc, ptr) != nil
}

// schema compiles (once) the schema at a pointer into the contract.
func (s *strictContract) schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[ptr]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile("contract.json#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", ptr, err)
	}
	s.schemas[ptr] = sch
	return sch, nil
}

// streamUnion names the schema of a stream's parsed events by the path
// that answered it.
func streamUnion(path string) string {
	switch {
	case strings.HasSuffix(path, "/rag/experiments/stream"):
		return "RagStreamEvent"
	case strings.HasSuffix(path, "/events"):
		return "SessionWatchEvent"
	}
	return "ChatStreamEvent"
}

// checkStreamEvent validates one parsed server-sent event (event name, id,
// data) against the contract's schema for the stream's events, strictly.
func checkStreamEvent(t testing.TB, path string, ev sseEvent) {
	t.Helper()
	strict, err := loadStrictContract()
	require.NoError(t, err)
	sch, err := strict.schema("/components/schemas/" + streamUnion(path))
	require.NoError(t, err)
	raw, err := json.Marshal(map[string]any{"event": ev.name, "id": ev.id, "data": ev.data})
	require.NoError(t, err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(v), "%s: the %q event does not match the contract's %s: %s", path, ev.name, streamUnion(path), raw)
}

// lookup follows an RFC 6901 pointer into decoded JSON.
func lookup(doc any, ptr string) any {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)]
	}
	return cur
}

func escapePointer(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

// The strict reading refuses what kin-openapi lets through, so the check
// in every test's e.do can catch it.
func TestStrictReadingRefusesANullThroughAReference(t *testing.T) {
	doc := map[string]any{"components": map[string]any{"schemas": map[string]any{
		"Id":     map[string]any{"type": "string", "pattern": "^k_"},
		"Lax":    map[string]any{"type": "string", "allOf": []any{map[string]any{"$ref": "#/components/schemas/Id"}}, "nullable": true},
		"Strict": map[string]any{"type": "string", "pattern": "^k_", "nullable": true},
	}}}
	strictNullable(doc)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource("doc.json", doc))
	lax, err := c.Compile("doc.json#/components/schemas/Lax")
	require.NoError(t, err)
	strict, err := c.Compile("doc.json#/components/schemas/Strict")
	require.NoError(t, err)
	require.Error(t, lax.Validate(nil), "nullable does not reach into the allOf")
	require.NoError(t, strict.Validate(nil))
	require.NoError(t, strict.Validate("k_1"))
	require.Error(t, strict.Validate("x"))
}

// The stream event schemas are strict about shapes and names.
func TestStreamEventSchemasAreStrict(t *testing.T) {
	strict, err := loadStrictContract()
	require.NoError(t, err)
	sch, err := strict.schema("/components/schemas/ChatStreamEvent")
	require.NoError(t, err)
	check := func(raw string) error {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
		require.NoError(t, err)
		return sch.Validate(v)
	}
	require.NoError(t, check(`{"event":"delta","id":"msg_1:2","data":{"text":"Refunds","reset":false}}`))
	require.Error(t, check(`{"event":"delta","id":"msg_1:2","data":{"text":3,"reset":false}}`), "wrong type")
	require.Error(t, check(`{"event":"delta","id":"msg_1:2","data":{"text":"x"}}`), "missing reset")
	require.Error(t, check(`{"event":"gossip","id":"msg_1:2","data":{}}`), "unknown event")
	require.Error(t, check(`{"event":"error","id":"msg_1:9","data":{"code":"oops","detail":"x"}}`), "unknown code")
}
