package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKnowledgeBaseCRUD(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: map[string]any{"name": "Refunds"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	kb := r.JSON(t)
	id := kb["id"].(string)
	assert.Regexp(t, `^kb_[0-9a-f]{32}$`, id)
	assert.Equal(t, "", kb["description"])
	assert.Equal(t, "/api/v1/admin/kb/knowledge-bases/"+id, r.Header.Get("Location"))
	path := r.Header.Get("Location")

	t.Run("a duplicate name in the tenant is a conflict", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme", body: map[string]any{"name": "Refunds"}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
	})
	t.Run("update bumps the version; a stale version is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "Refunds & returns", "description": "d", "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 2, r.JSON(t)["version"])
		assert.Equal(t, "Refunds & returns", r.JSON(t)["name"])

		stale := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "x", "description": "", "version": 1}})
		assert.Equal(t, http.StatusConflict, stale.Status)
		assert.Equal(t, "version_conflict", stale.Code(t))
		assert.Equal(t, "Refunds & returns", e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["name"], "nothing changed")
	})
	t.Run("renaming onto another knowledge base's name is a conflict", func(t *testing.T) {
		e.createKB("", "acme", "Shipping")
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "Shipping", "description": "", "version": 2}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
	})
	t.Run("documentCount counts the documents", func(t *testing.T) {
		for i := range 3 {
			_, err := e.db.Exec(t.Context(), "INSERT INTO documents (id, tenant_id, kb_id, name, status) VALUES ($1, 'acme', $2, 'f.pdf', 'ready')",
				fmt.Sprintf("doc_%d", i), id)
			require.NoError(t, err)
		}
		assert.EqualValues(t, 3, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["documentCount"])
		list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme"}).JSON(t)["items"].([]any)
		counts := map[string]float64{}
		for _, it := range list {
			m := it.(map[string]any)
			counts[m["id"].(string)] = m["documentCount"].(float64)
		}
		assert.EqualValues(t, 3, counts[id])
	})
	t.Run("delete removes it and its documents", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		var docs int
		require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM documents WHERE kb_id = $1", id).Scan(&docs))
		assert.Zero(t, docs)
	})
}

func TestKnowledgeBaseListPagesNewestFirst(t *testing.T) {
	e := newEnv(t)
	var made []string
	for i := range 5 {
		made = append(made, e.createKB("", "acme", fmt.Sprintf("kb %d", i))["id"].(string))
	}
	var seen []string
	path := "/api/v1/admin/kb/knowledge-bases?limit=2"
	for {
		r := e.do(req{method: "GET", path: path, tenant: "acme"})
		require.Equal(t, http.StatusOK, r.Status)
		body := r.JSON(t)
		for _, it := range body["items"].([]any) {
			seen = append(seen, it.(map[string]any)["id"].(string))
		}
		next, ok := body["nextCursor"].(string)
		if !ok {
			break
		}
		path = "/api/v1/admin/kb/knowledge-bases?limit=2&cursor=" + next
	}
	require.Len(t, seen, 5)
	for i := range made {
		assert.Equal(t, made[len(made)-1-i], seen[i], "newest first")
	}
}
