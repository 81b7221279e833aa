package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// slotFixtures makes, in tenant A, a slot definition and a decomposition
// template for the tenant replay. The definition is order_no (a letter and
// five digits), the key and the value the contract's slot examples use, so
// that the control run's slot writes pass; the template, from the
// contract's example (order_no and the metadata field product that the
// metadata fixture made), gets versions 2 and 3 and publishes 3, so that
// the examples of publish (2) and rollback (2) name versions it has. The
// metadata field is also the id the create example links
// (metadataFieldId). Made after the chat session, whose example slots
// predate any definition.
func (f *tenantFixtures) slotFixtures(t *testing.T, e *env, spec specOps) {
	t.Helper()
	r := e.do(req{method: "POST", path: "/api/v1/admin/slots", tenant: f.tenant, body: map[string]any{
		"key": "order_no", "label": "Order number", "type": "string", "pattern": "^[A-Z][0-9]{5}$",
		"prompt": "What is your order number?", "description": f.marker}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	f.put(r.JSON(t)["id"].(string), "slotId")
	f.put(f.ids["fieldId"], "metadataFieldId")

	id := f.create(t, e, spec, "createDecompositionTemplate", map[string]any{"description": f.marker})
	path := "/api/v1/admin/decomposition-templates/" + id
	update := synthValue(spec.byID(t, "updateDecompositionTemplate").Body).(map[string]any)
	content := update["content"].(map[string]any)
	for version, suffix := range []string{" Be exact.", " Never guess."} {
		content["instruction"] = content["instruction"].(string) + suffix
		update["version"] = version + 1
		r := e.do(req{method: "PUT", path: path, tenant: f.tenant, body: update})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
	r = e.do(req{method: "POST", path: path + "/publish", tenant: f.tenant, body: map[string]any{"version": 3}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	f.put(id, "decomposition-templates/tplId")
}
