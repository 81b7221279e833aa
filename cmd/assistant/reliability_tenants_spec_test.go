package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/openapi"
)

// specOp is one operation of the contract with what the reliability tests
// need to build requests for it.
type specOp struct {
	ID, Method string
	// Path is the contract path, "/admin/kb/knowledge-bases/{kbId}".
	Path   string
	Params []*openapi3.Parameter
	// TenantScoped operations take X-Tenant-Id.
	TenantScoped bool
	// Public operations declare `security: []` (the share page).
	Public bool
	// BodyType is the request body's media type, "" when it has none.
	BodyType     string
	Body         *openapi3.SchemaRef
	BodyRequired bool
	// Statuses are the response statuses the operation declares.
	Statuses []int
}

// specOps is the contract's operations, sorted by path and method.
type specOps []specOp

// loadSpecOps reads every operation of the embedded contract.
func loadSpecOps(t testing.TB) specOps {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec())
	require.NoError(t, err)
	var out specOps
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, newSpecOp(t, path, method, item, op))
		}
	}
	slices.SortFunc(out, func(a, b specOp) int {
		return strings.Compare(a.Path+" "+a.Method, b.Path+" "+b.Method)
	})
	require.NotEmpty(t, out)
	return out
}

// newSpecOp reads one operation: its merged parameters, its body and the
// statuses it declares.
func newSpecOp(t testing.TB, path, method string, item *openapi3.PathItem, op *openapi3.Operation) specOp {
	t.Helper()
	o := specOp{ID: op.OperationID, Method: method, Path: path, Public: op.Security != nil && len(*op.Security) == 0}
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		o.Params = append(o.Params, p.Value)
		o.TenantScoped = o.TenantScoped || (p.Value.In == openapi3.ParameterInHeader && p.Value.Name == "X-Tenant-Id")
	}
	if op.RequestBody != nil {
		rb := op.RequestBody.Value
		require.Len(t, rb.Content, 1, "%s: the reliability tests expect one request media type", o.ID)
		for mt, c := range rb.Content {
			o.BodyType, o.Body, o.BodyRequired = mt, c.Schema, rb.Required
		}
	}
	for code := range op.Responses.Map() {
		if n, err := strconv.Atoi(code); err == nil {
			o.Statuses = append(o.Statuses, n)
		}
	}
	slices.Sort(o.Statuses)
	return o
}

// byID finds an operation by its operationId.
func (s specOps) byID(t testing.TB, id string) specOp {
	t.Helper()
	for _, o := range s {
		if o.ID == id {
			return o
		}
	}
	require.FailNow(t, "the contract has no operation "+id)
	return specOp{}
}

// get finds the GET operation of a contract path.
func (s specOps) get(path string) (specOp, bool) {
	for _, o := range s {
		if o.Path == path && o.Method == "GET" {
			return o, true
		}
	}
	return specOp{}, false
}

// params lists the operation's parameters found in in ("path", "query").
func (o specOp) params(in string) []*openapi3.Parameter {
	var out []*openapi3.Parameter
	for _, p := range o.Params {
		if p.In == in {
			out = append(out, p)
		}
	}
	return out
}

// schemaName is the components name of the request body's schema.
func (o specOp) schemaName() string {
	if o.Body == nil {
		return ""
	}
	return o.Body.Ref[strings.LastIndex(o.Body.Ref, "/")+1:]
}

// isIDName tells names that carry another resource's id: id, kbId,
// kbIds, documentId, tenantId…
func isIDName(name string) bool {
	return name == "id" || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "Ids")
}

// idFields lists where a request of the operation names a resource: path
// parameters ("path.kbId"), query parameters ("query.documentId") and
// top-level body or form properties ("/kbIds").
func (o specOp) idFields() (path, other []string) {
	for _, p := range o.Params {
		if !isIDName(p.Name) {
			continue
		}
		switch p.In {
		case openapi3.ParameterInPath:
			path = append(path, "path."+p.Name)
		case openapi3.ParameterInQuery:
			other = append(other, "query."+p.Name)
		}
	}
	if o.Body != nil {
		for _, name := range sortedMapKeys(o.Body.Value.Properties) {
			if isIDName(name) {
				other = append(other, "/"+name)
			}
		}
	}
	return path, other
}

// sortedMapKeys lists a map's keys in order.
func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// controlRank orders operations so that no request breaks a later one:
// reads, then writes, then deletes, then what acts on the whole tenant
// (disabling it would refuse everything after). A rollback goes first
// among the writes: it needs the fixture's later published version, which
// the writes (a publish) move.
func (o specOp) controlRank() int {
	switch {
	case strings.Contains(o.Path, "{tenantId}") && o.Method != "GET":
		return 5
	case o.Method == "DELETE":
		return 4
	case o.Method == "GET":
		return 1
	case strings.HasPrefix(o.ID, "rollback"):
		return 2
	}
	return 3
}
