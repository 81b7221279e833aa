package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A change to a tenant's slot definitions or metadata fields made through
// the API applies to the very next message, although messages read them
// from a cache: the write drops the cached definitions at once on the
// replica that made it. The replica's change listener is stopped, so that
// its own notification cannot be what drops them. Each step shows in the
// retrieval filter that the session's device slot (linked to the product
// filter field) makes.
func TestSlotAndFieldChangesApplyToTheNextMessage(t *testing.T) {
	e, _ := decompositionEnv(t) // its template is not published: the filter is the slots' alone
	e.app.stopBackground()      // the listener, with the other loops (the FAQ is indexed)
	e.app.background.Wait()
	c := e.newChat("acme", map[string]string{"device": "router"})
	filter := func() any {
		t.Helper()
		c.send(t, "How long do refunds take?")
		return e.retrievalDetail(t, c.session)["filter"]
	}
	router := map[string]any{"product": "router"}
	require.Equal(t, router, filter(), "the cached definitions make the filter")
	require.Equal(t, router, filter(), "and keep making it")

	items := e.do(req{method: "GET", path: fieldsPath, tenant: "acme"}).JSON(t)["items"].([]any)
	require.Len(t, items, 1)
	field := items[0].(map[string]any)
	fieldPath := fieldsPath + "/" + field["id"].(string)
	var device map[string]any
	for _, it := range e.do(req{method: "GET", path: slotsPath, tenant: "acme"}).JSON(t)["items"].([]any) {
		if d := it.(map[string]any); d["key"] == "device" {
			device = d
		}
	}
	require.NotNil(t, device)

	putField := func(role string) {
		t.Helper()
		field["role"] = role
		r := e.do(req{method: "PUT", path: fieldPath, tenant: "acme", body: map[string]any{"label": field["label"],
			"type": field["type"], "required": field["required"], "enumValues": field["enumValues"], "role": role,
			"description": field["description"], "version": field["version"]}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		field = r.JSON(t)
	}
	putDevice := func(fieldID any) {
		t.Helper()
		r := e.do(req{method: "PUT", path: slotsPath + "/" + device["id"].(string), tenant: "acme", body: map[string]any{
			"label": device["label"], "type": device["type"], "enumValues": device["enumValues"], "required": device["required"],
			"pattern": device["pattern"], "prompt": device["prompt"], "metadataFieldId": fieldID, "status": device["status"],
			"description": device["description"], "version": device["version"]}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		device = r.JSON(t)
	}

	t.Run("a field's role", func(t *testing.T) {
		putField("display")
		assert.Nil(t, filter(), "a display field filters nothing")
		putField("filter")
		assert.Equal(t, router, filter())
	})
	t.Run("a field's status", func(t *testing.T) {
		move := func(status string) {
			r := e.do(req{method: "POST", path: fieldPath + "/status", tenant: "acme", body: map[string]any{"status": status}})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		}
		move("deprecated")
		assert.Nil(t, filter(), "a deprecated field no longer makes filters")
		move("active")
		assert.Equal(t, router, filter())
	})
	t.Run("a slot definition's link", func(t *testing.T) {
		putDevice(nil)
		assert.Nil(t, filter(), "an unlinked slot filters by a field of its own key, and there is none")
		putDevice(field["id"])
		assert.Equal(t, router, filter())
	})
	t.Run("a slot definition deleted and made again", func(t *testing.T) {
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: slotsPath + "/" + device["id"].(string), tenant: "acme"}).Status)
		assert.Nil(t, filter(), "without its definition the slot is not linked")
		device = e.defineSlot(t, "acme", map[string]any{"key": "device", "type": "enum", "enumValues": []string{"router", "camera"},
			"metadataFieldId": field["id"]})
		assert.Equal(t, router, filter())
	})
	t.Run("a field deleted, and one made under the slot's key", func(t *testing.T) {
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: fieldPath, tenant: "acme"}).Status)
		assert.Nil(t, filter(), "the field is gone and the slot unlinked")
		got := e.do(req{method: "GET", path: slotsPath + "/" + device["id"].(string), tenant: "acme"}).JSON(t)
		assert.Nil(t, got["metadataFieldId"])
		e.createField("acme", map[string]any{"key": "device", "type": "enum", "enumValues": []string{"router", "camera"},
			"scope": "document", "role": "filter"})
		assert.Equal(t, map[string]any{"device": "router"}, filter(), "a filter field of the slot's key filters by it")
	})
}
