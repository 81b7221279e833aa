package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const slotsPath = "/api/v1/admin/slots"

// defineSlot creates a slot definition in tenant and returns it.
func (e *env) defineSlot(t *testing.T, tenant string, body map[string]any) map[string]any {
	t.Helper()
	r := e.do(req{method: "POST", path: slotsPath, tenant: tenant, body: body})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(t)
}

// putSlots replaces a session's slots.
func (c *chat) putSlots(slots map[string]string) response {
	return c.e.do(req{method: "PUT", path: c.path("/slots"), tenant: c.tenant, body: map[string]any{"slots": slots}})
}

func TestSlotDefinitionsAdministration(t *testing.T) {
	e := newEnv(t)
	field := e.create(t, "acme", "/admin/metadata/fields", map[string]any{"key": "product", "type": "enum",
		"enumValues": []string{"router", "camera"}, "scope": "document", "role": "filter"})
	order := e.defineSlot(t, "acme", map[string]any{"key": "order_no", "label": "Order number", "type": "string",
		"pattern": "^[A-Z][0-9]{5}$", "required": true, "prompt": "What is your order number?"})

	t.Run("a definition is made with its defaults and read back", func(t *testing.T) {
		assert.Regexp(t, `^slot_[0-9a-f]{32}$`, order["id"])
		assert.Equal(t, "acme", order["tenantId"])
		assert.Equal(t, "active", order["status"])
		assert.Equal(t, []any{}, order["enumValues"])
		assert.Nil(t, order["metadataFieldId"])
		assert.Equal(t, 1.0, order["version"])
		r := e.do(req{method: "GET", path: slotsPath + "/" + order["id"].(string), tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status)
		assert.Equal(t, order, r.JSON(t))
	})
	t.Run("bad definitions name each bad field", func(t *testing.T) {
		r := e.do(req{method: "POST", path: slotsPath, tenant: "acme", body: map[string]any{"key": "size", "type": "number",
			"enumValues": []string{"s"}, "pattern": "(["}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "validation_failed", r.Code(t))
		errs := fieldErrors(t, r)
		assert.Contains(t, errs["/enumValues"], "only enum slots")
		assert.Contains(t, errs["/pattern"], "only string and string_array")

		r = e.do(req{method: "POST", path: slotsPath, tenant: "acme", body: map[string]any{"key": "color", "type": "enum"}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/enumValues"], "at least one value")

		r = e.do(req{method: "POST", path: slotsPath, tenant: "acme", body: map[string]any{"key": "code", "type": "string", "pattern": "(["}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r)["/pattern"], "does not compile")
	})
	t.Run("a key is taken once per tenant", func(t *testing.T) {
		r := e.do(req{method: "POST", path: slotsPath, tenant: "acme", body: map[string]any{"key": "order_no", "type": "string"}})
		require.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
		e.defineSlot(t, "globex", map[string]any{"key": "order_no", "type": "string"})
	})
	t.Run("the linked metadata field must be the tenant's", func(t *testing.T) {
		r := e.do(req{method: "POST", path: slotsPath, tenant: "globex", body: map[string]any{"key": "product", "type": "enum",
			"enumValues": []string{"router"}, "metadataFieldId": field}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Contains(t, fieldErrors(t, r), "/metadataFieldId")
		linked := e.defineSlot(t, "acme", map[string]any{"key": "product", "type": "enum", "enumValues": []string{"router", "camera"},
			"metadataFieldId": field})
		assert.Equal(t, field, linked["metadataFieldId"])
	})
	t.Run("an update replaces all but the key, at the current version", func(t *testing.T) {
		path := slotsPath + "/" + order["id"].(string)
		body := map[string]any{"label": "Order", "type": "string", "enumValues": []string{}, "required": false,
			"pattern": "^[A-Z][0-9]{4,5}$", "prompt": "Your order number?", "metadataFieldId": nil, "status": "deprecated",
			"description": "The order.", "version": 1}
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.Equal(t, "order_no", got["key"])
		assert.Equal(t, "deprecated", got["status"])
		assert.Equal(t, "^[A-Z][0-9]{4,5}$", got["pattern"])
		assert.Equal(t, 2.0, got["version"])

		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
		require.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "version_conflict", r.Code(t))
		r = e.do(req{method: "PUT", path: path, tenant: "globex", body: body})
		assert.Equal(t, http.StatusNotFound, r.Status, "another tenant's definition does not exist for it")
	})
	t.Run("the list is ordered by key and filters by status; chat sees the active ones", func(t *testing.T) {
		r := e.do(req{method: "GET", path: slotsPath + "?limit=1", tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status)
		page := r.JSON(t)
		require.Len(t, page["items"], 1)
		assert.Equal(t, "order_no", page["items"].([]any)[0].(map[string]any)["key"])
		r = e.do(req{method: "GET", path: slotsPath + "?limit=1&cursor=" + page["nextCursor"].(string), tenant: "acme"})
		assert.Equal(t, "product", r.JSON(t)["items"].([]any)[0].(map[string]any)["key"])

		r = e.do(req{method: "GET", path: slotsPath + "?status=deprecated", tenant: "acme"})
		assert.Equal(t, []string{"order_no"}, slotKeys(t, r))
		_, chatKey := e.createKey(ptr("acme"), "chat")
		r = e.do(req{method: "GET", path: "/api/v1/chat/slots", key: chatKey, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, []string{"product"}, slotKeys(t, r), "deprecated definitions are not offered to clients")
	})
	t.Run("a delete removes it", func(t *testing.T) {
		path := slotsPath + "/" + order["id"].(string)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "globex"}).Status)
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
	})
}

func slotKeys(t *testing.T, r response) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	keys := []string{}
	for _, it := range r.JSON(t)["items"].([]any) {
		keys = append(keys, it.(map[string]any)["key"].(string))
	}
	return keys
}

func TestSlotDefinitionsConstrainSessionSlots(t *testing.T) {
	e := newEnv(t)
	c := e.newChat("acme", map[string]string{"anything": "goes"})

	t.Run("without definitions slots are free-form", func(t *testing.T) {
		r := c.putSlots(map[string]string{"mood": "fine", "order_no": "whatever"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{"mood": "fine", "order_no": "whatever"}, r.JSON(t)["slots"])
	})

	e.defineSlot(t, "acme", map[string]any{"key": "order_no", "type": "string", "pattern": "^[A-Z][0-9]{5}$"})
	e.defineSlot(t, "acme", map[string]any{"key": "quantity", "type": "number"})
	e.defineSlot(t, "acme", map[string]any{"key": "gift", "type": "boolean"})
	e.defineSlot(t, "acme", map[string]any{"key": "delivery", "type": "date"})
	e.defineSlot(t, "acme", map[string]any{"key": "product", "type": "enum", "enumValues": []string{"Router", "Camera"}})
	e.defineSlot(t, "acme", map[string]any{"key": "colors", "type": "string_array", "pattern": "^[a-z]+$"})

	t.Run("values are stored typed and normalised", func(t *testing.T) {
		r := c.putSlots(map[string]string{"order_no": " A10086 ", "quantity": "2.50", "gift": "yes",
			"delivery": "2026-11-22T18:30:00Z", "product": "router", "colors": "red,  blue"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		want := map[string]any{"order_no": "A10086", "quantity": "2.5", "gift": "true", "delivery": "2026-11-22",
			"product": "Router", "colors": "red, blue"}
		assert.Equal(t, want, r.JSON(t)["slots"])
		assert.Equal(t, want, e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"])
	})
	t.Run("an undefined key or a value that does not fit is slot_invalid, one error per slot", func(t *testing.T) {
		r := c.putSlots(map[string]string{"order_no": "12", "quantity": "many", "gift": "perhaps", "delivery": "soon",
			"product": "tablet", "colors": "red, Blue", "mood": "fine"})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "slot_invalid", r.Code(t))
		errs := fieldErrors(t, r)
		assert.Len(t, errs, 7)
		assert.Contains(t, errs["/slots/order_no"], "must match")
		assert.Contains(t, errs["/slots/quantity"], "number")
		assert.Contains(t, errs["/slots/gift"], "true or false")
		assert.Contains(t, errs["/slots/delivery"], "date")
		assert.Contains(t, errs["/slots/product"], "one of")
		assert.Contains(t, errs["/slots/colors"], `"Blue"`)
		assert.Contains(t, errs["/slots/mood"], "no slot definition")
		assert.Equal(t, "A10086", e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"].(map[string]any)["order_no"],
			"a refused write changes nothing")
	})
	t.Run("a new session's slots are checked too", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{"slots": map[string]string{"quantity": "x"}}})
		require.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "slot_invalid", r.Code(t))
		assert.Contains(t, fieldErrors(t, r), "/slots/quantity")
	})
	t.Run("the rules are the tenant's own", func(t *testing.T) {
		other := e.newChat("globex", nil)
		r := other.putSlots(map[string]string{"quantity": "many"})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	})
}

// A flow step that fills a defined slot is held to the definition: a value
// it refuses is asked for again with the definition's prompt, a good one
// is stored normalised, and a slot the tenant does not define stays out
// of the session.
func TestFlowStepsFollowSlotDefinitions(t *testing.T) {
	e := newEnv(t)
	e.defineSlot(t, "acme", map[string]any{"key": "quantity", "type": "number", "prompt": "How many? Please answer with a number."})
	flowID := e.create(t, "acme", "/admin/script-flows", map[string]any{"name": "Bulk order", "steps": []any{
		map[string]any{"step_no": 1, "prompt": "How many do you need?", "wait_input": true,
			"expect": map[string]any{"slot": "quantity", "max_retries": 2}},
		map[string]any{"step_no": 2, "prompt": "Any note for the packer?", "wait_input": true, "expect": map[string]any{"slot": "note"}},
		map[string]any{"step_no": 3, "prompt": "Thanks, noted."},
	}})
	e.create(t, "acme", "/admin/intent-rules", map[string]any{"name": "Bulk", "keywords": []string{"bulk order"},
		"responseType": "flow", "flowId": flowID, "priority": 5})
	c := e.newChat("acme", nil)

	assert.Equal(t, "How many do you need?", c.send(t, "I want to place a bulk order")["answer"])
	slots := func() any { return e.do(req{method: "GET", path: c.path("/slots"), tenant: "acme"}).JSON(t)["slots"] }
	assert.Equal(t, "How many? Please answer with a number.", c.send(t, "lots")["answer"], "the definition's prompt asks again")
	assert.Equal(t, map[string]any{}, slots(), "nothing is stored for a refused value")

	assert.Equal(t, "Any note for the packer?", c.send(t, "12.0")["answer"])
	assert.Equal(t, map[string]any{"quantity": "12"}, slots())

	assert.Equal(t, "Thanks, noted.", c.send(t, "Fragile")["answer"])
	assert.Equal(t, map[string]any{"quantity": "12"}, slots(), "an undefined slot stays in the flow, out of the session")

	sim := e.do(req{method: "POST", path: "/api/v1/admin/script-flows/" + flowID + "/simulate", tenant: "acme",
		body: map[string]any{"inputs": []string{"lots", "3"}}})
	require.Equal(t, http.StatusOK, sim.Status, "%s", sim.Body)
	out := sim.JSON(t)
	calls := out["calls"].([]any)
	require.Len(t, calls, 3)
	assert.Equal(t, []any{"How many? Please answer with a number."}, calls[1].(map[string]any)["texts"], "the simulation follows the definitions too")
	assert.Equal(t, map[string]any{"quantity": "3"}, out["state"].(map[string]any)["slots"])
}
