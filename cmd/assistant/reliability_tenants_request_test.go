package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// builtRequest is one request of an operation, credentials aside.
type builtRequest struct {
	op     specOp
	method string
	// path is "/api/v1/…" with its query.
	path        string
	body        []byte
	contentType string
	// json is the JSON body before encoding, nil for other bodies.
	json any
}

// wire turns the request into one sent with key as tenant (the tenant
// header goes only to tenant-scoped operations).
func (b builtRequest) wire(key, tenant string) wireRequest {
	p := wireRequest{method: b.method, path: b.path, key: key, body: b.body, contentType: b.contentType}
	if b.op.TenantScoped {
		p.tenant = tenant
	}
	return p
}

// fillPath puts ids into the contract path: id parameters from ids (the
// test fails, asking for a fixture, for one it does not know), enumerated
// ones their first value.
func fillPath(t testing.TB, op specOp, ids idSource) string {
	t.Helper()
	path := op.Path
	for _, p := range op.params(openapi3.ParameterInPath) {
		v, ok := ids.lookup(op.Path, p.Name)
		if !ok && !isIDName(p.Name) && p.Schema != nil && len(p.Schema.Value.Enum) > 0 {
			v, ok = fmt.Sprint(p.Schema.Value.Enum[0]), true
		}
		require.True(t, ok, "%s %s (%s): no fixture for the path parameter %q; add one to buildTenantFixtures "+
			"(reliability_tenants_fixtures_test.go) so the reliability suite covers this operation",
			op.Method, op.Path, op.ID, p.Name)
		path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(v))
	}
	return "/api/v1" + path
}

// variantHints are the other fields a body must change for one of its id
// fields to count: an intent rule names knowledge bases only as a rag rule
// and a flow only as a flow rule. nil removes the field.
func variantHints() map[string]map[string]any {
	return map[string]map[string]any{
		"IntentRuleCreateRequest/kbIds":  {"responseType": "rag", "fixedText": nil},
		"IntentRuleCreateRequest/flowId": {"responseType": "flow", "fixedText": nil},
	}
}

// buildRequest makes a valid request of op naming resources from ids.
// variant "" names only what the path must; "query.kbId" or "/kbIds" also
// names that resource there. seq makes names unique between requests.
// Optimistic-concurrency versions are read from the resource as it is now.
func (e *env) buildRequest(t testing.TB, spec specOps, op specOp, ids idSource, variant string, seq int) builtRequest {
	t.Helper()
	b := builtRequest{op: op, method: op.Method, path: fillPath(t, op, ids)}
	if name, ok := strings.CutPrefix(variant, "query."); ok {
		v, found := ids.lookup(op.Path, name)
		require.True(t, found, "%s: no fixture for the query parameter %q; add one to buildTenantFixtures", op.ID, name)
		b.path += "?" + url.Values{name: {v}}.Encode()
	}
	switch op.BodyType {
	case "":
	case "multipart/form-data":
		b.body, b.contentType = encodeForm(t, formParts(t, op, ids))
	default:
		b.json = e.jsonBody(t, spec, op, ids, variant, b.path, seq)
		data, err := json.Marshal(b.json)
		require.NoError(t, err)
		b.body, b.contentType = data, op.BodyType
	}
	return b
}

// jsonBody is the operation's example (or synthesised) body with the
// variant's id field set, names made unique and the version current.
func (e *env) jsonBody(t testing.TB, spec specOps, op specOp, ids idSource, variant, path string, seq int) any {
	t.Helper()
	body := futureTimes(op.Body, synthValue(op.Body))
	m, ok := body.(map[string]any)
	if !ok {
		return body
	}
	all := schemaProps(op.Body)
	if field, ok := strings.CutPrefix(variant, "/"); ok {
		v, found := ids.lookup(op.Path, field)
		require.True(t, found, "%s: no fixture for the body field %q; add one to buildTenantFixtures", op.ID, field)
		m[field] = v
		if s := all[field]; s != nil && s.Value.Type.Is("array") {
			m[field] = []any{v}
		}
		for k, x := range variantHints()[op.schemaName()+"/"+field] {
			if x == nil {
				delete(m, k)
			} else {
				m[k] = x
			}
		}
	}
	if name, ok := m["name"].(string); ok && op.Method == "POST" {
		m["name"] = uniqueName(name, seq, all["name"])
	}
	if isVersionRef(all["version"]) {
		if v, ok := e.currentVersion(t, spec, op, path, ids.tenant); ok {
			m["version"] = v
		}
	}
	return m
}

// uniqueName appends seq to a name, within its maximum length.
func uniqueName(name string, seq int, s *openapi3.SchemaRef) string {
	out := fmt.Sprintf("%s %d", name, seq)
	if s != nil && s.Value.MaxLength != nil && uint64(len(out)) > *s.Value.MaxLength {
		out = out[uint64(len(out))-*s.Value.MaxLength:]
	}
	return out
}

// currentVersion reads the version of the resource a write addresses: the
// nearest GET at or above the operation's path.
func (e *env) currentVersion(t testing.TB, spec specOps, op specOp, path, tenant string) (any, bool) {
	t.Helper()
	segs := strings.Split(op.Path, "/")
	filled := strings.Split(strings.TrimPrefix(strings.SplitN(path, "?", 2)[0], "/api/v1"), "/")
	for n := len(segs); n > 1; n-- {
		get, ok := spec.get(strings.Join(segs[:n], "/"))
		if !ok {
			continue
		}
		r := e.sendWire(builtRequest{op: get, method: "GET", path: "/api/v1" + strings.Join(filled[:n], "/")}.wire("", tenant))
		if r.Status != http.StatusOK {
			return nil, false
		}
		var m map[string]any
		if json.Unmarshal(r.Body, &m) != nil {
			return nil, false
		}
		v, ok := m["version"]
		return v, ok
	}
	return nil, false
}

// formPart is one part of a multipart form.
type formPart struct {
	name, fileName string
	value          []byte
}

// formParts makes the required parts of an upload form: ids from ids,
// examples for the rest, and last (the handler streams the file) a small
// text file for a binary property.
func formParts(t testing.TB, op specOp, ids idSource) []formPart {
	t.Helper()
	all := schemaProps(op.Body)
	var parts, files []formPart
	for _, name := range op.Body.Value.Required {
		s := all[name]
		switch {
		case s != nil && s.Value.Format == "binary":
			files = append(files, formPart{name: name, fileName: "note.txt", value: []byte("Parcels ship within two days.\n")})
		case isIDName(name):
			v, ok := ids.lookup(op.Path, name)
			require.True(t, ok, "%s: no fixture for the form field %q; add one to buildTenantFixtures", op.ID, name)
			parts = append(parts, formPart{name: name, value: []byte(v)})
		default:
			parts = append(parts, formPart{name: name, value: []byte(fmt.Sprint(synthValue(s)))})
		}
	}
	return append(parts, files...)
}

// encodeForm writes the parts as multipart/form-data.
func encodeForm(t testing.TB, parts []formPart) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		disposition := `form-data; name="` + p.name + `"`
		if p.fileName != "" {
			disposition += `; filename="` + p.fileName + `"`
			h.Set("Content-Type", "application/octet-stream")
		}
		h.Set("Content-Disposition", disposition)
		part, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = part.Write(p.value)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return body.Bytes(), w.FormDataContentType()
}
