package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const tplPath = "/api/v1/admin/prompt-templates"

// tplContent is a template content in its API form.
func tplContent(instruction string, vars ...map[string]any) map[string]any {
	if vars == nil {
		vars = []map[string]any{}
	}
	return map[string]any{"system_instruction": instruction, "variables": vars}
}

// createTpl makes a template in tenant and returns its JSON.
func (e *env) createTpl(tenant, name, scene string, content map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: tplPath, tenant: tenant, body: map[string]any{"name": name, "scene": scene, "content": content}})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// fieldsOf returns the field pointers of a problem's errors.
func fieldsOf(t *testing.T, r response) []string {
	t.Helper()
	var out []string
	errs, _ := r.JSON(t)["errors"].([]any)
	for _, f := range errs {
		out = append(out, f.(map[string]any)["field"].(string))
	}
	return out
}

func TestPromptTemplateCRUDAndVersions(t *testing.T) {
	e := newEnv(t)
	v1 := tplContent("You help customers of {{tenant_name}}.", map[string]any{"name": "tenant_name", "kind": "builtin"})
	r := e.do(req{method: "POST", path: tplPath, tenant: "acme",
		body: map[string]any{"name": "Support", "description": "answers", "scene": "chat", "content": v1}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	tpl := r.JSON(t)
	id := tpl["id"].(string)
	assert.Regexp(t, `^tpl_[0-9a-f]{32}$`, id)
	assert.Equal(t, tplPath+"/"+id, r.Header.Get("Location"))
	assert.EqualValues(t, 1, tpl["latestVersion"])
	assert.Nil(t, tpl["publishedVersion"], "nothing published yet")
	assert.EqualValues(t, 1, tpl["version"])
	assert.Equal(t, "chat", tpl["scene"])
	path := tplPath + "/" + id

	t.Run("a duplicate name in the tenant is a conflict", func(t *testing.T) {
		r := e.do(req{method: "POST", path: tplPath, tenant: "acme", body: map[string]any{"name": "Support", "scene": "summary", "content": v1}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "conflict", r.Code(t))
	})
	t.Run("a changed content is a new version", func(t *testing.T) {
		v2 := tplContent("You help customers of {{tenant_name}}. Be {{tone}}.",
			map[string]any{"name": "tenant_name", "kind": "builtin"},
			map[string]any{"name": "tone", "kind": "custom", "default": "brief"})
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "Support", "description": "answers", "content": v2, "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := r.JSON(t)
		assert.EqualValues(t, 2, got["latestVersion"])
		assert.EqualValues(t, 2, got["version"])
		assert.Equal(t, "brief", got["content"].(map[string]any)["variables"].([]any)[1].(map[string]any)["default"])
	})
	t.Run("a save without a content change makes no version", func(t *testing.T) {
		cur := e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)
		r := e.do(req{method: "PUT", path: path, tenant: "acme",
			body: map[string]any{"name": "Support answers", "description": "renamed", "content": cur["content"], "version": 2}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 2, r.JSON(t)["latestVersion"])
		assert.EqualValues(t, 3, r.JSON(t)["version"])
		assert.Equal(t, "Support answers", r.JSON(t)["name"])
	})
	t.Run("a stale version is a conflict and changes nothing", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"name": "x", "description": "", "content": tplContent("x"), "version": 1}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "version_conflict", r.Code(t))
		assert.EqualValues(t, 2, e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)["latestVersion"])
	})
	t.Run("versions are listed newest first, page by page", func(t *testing.T) {
		var seen []float64
		p := path + "/versions?limit=1"
		for {
			r := e.do(req{method: "GET", path: p, tenant: "acme"})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			body := r.JSON(t)
			for _, it := range body["items"].([]any) {
				m := it.(map[string]any)
				seen = append(seen, m["version"].(float64))
				assert.Equal(t, false, m["published"])
				assert.Nil(t, m["lastPublishedAt"])
			}
			next, ok := body["nextCursor"].(string)
			if !ok {
				break
			}
			p = path + "/versions?limit=1&cursor=" + next
		}
		assert.Equal(t, []float64{2, 1}, seen)
	})
	t.Run("list filters by scene", func(t *testing.T) {
		e.createTpl("acme", "Summaries", "summary", tplContent("Summarise."))
		all := e.do(req{method: "GET", path: tplPath, tenant: "acme"}).JSON(t)["items"].([]any)
		assert.Len(t, all, 2)
		chat := e.do(req{method: "GET", path: tplPath + "?scene=chat", tenant: "acme"}).JSON(t)["items"].([]any)
		require.Len(t, chat, 1)
		assert.Equal(t, id, chat[0].(map[string]any)["id"])
	})
	t.Run("another tenant sees none of it", func(t *testing.T) {
		assert.Empty(t, e.do(req{method: "GET", path: tplPath, tenant: "globex"}).JSON(t)["items"])
		for _, rq := range []req{
			{method: "GET", path: path},
			{method: "PUT", path: path, body: map[string]any{"name": "x", "description": "", "content": tplContent("x"), "version": 3}},
			{method: "GET", path: path + "/versions"},
			{method: "POST", path: path + "/publish", body: map[string]any{"version": 1}},
			{method: "POST", path: path + "/rollback", body: map[string]any{"version": 1}},
			{method: "POST", path: path + "/preview", body: map[string]any{}},
			{method: "DELETE", path: path},
		} {
			rq.tenant = "globex"
			r := e.do(rq)
			assert.Equal(t, http.StatusNotFound, r.Status, "%s %s: %s", rq.method, rq.path, r.Body)
			assert.Equal(t, "not_found", r.Code(t))
		}
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: path, tenant: "acme"}).Status, "still there")
	})
	t.Run("delete removes it and its versions", func(t *testing.T) {
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path, tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: path + "/versions", tenant: "acme"}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: path, tenant: "acme"}).Status)
		var n int
		require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM prompt_template_versions WHERE template_id = $1", id).Scan(&n))
		assert.Zero(t, n)
	})
}

func TestPromptTemplateValidation(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name    string
		body    map[string]any
		code    string
		fields  []string
		message string
	}{
		{"an undeclared placeholder", map[string]any{"name": "a", "scene": "chat", "content": tplContent("Hi {{customer}}")},
			"validation_failed", []string{"/content/system_instruction"}, "customer"},
		{"a variable name that is no identifier", map[string]any{"name": "a", "scene": "chat",
			"content": tplContent("Hi", map[string]any{"name": "first-name", "kind": "custom"})},
			"validation_failed", []string{"/content/variables/0/name"}, ""},
		{"a duplicate variable", map[string]any{"name": "a", "scene": "chat",
			"content": tplContent("Hi {{x}}", map[string]any{"name": "x", "kind": "custom"}, map[string]any{"name": "x", "kind": "custom"})},
			"validation_failed", []string{"/content/variables/1/name"}, ""},
		{"an unknown built-in", map[string]any{"name": "a", "scene": "chat",
			"content": tplContent("{{weather}}", map[string]any{"name": "weather", "kind": "builtin"})},
			"validation_failed", []string{"/content/variables/0/name"}, ""},
		{"a custom variable with a built-in name", map[string]any{"name": "a", "scene": "chat",
			"content": tplContent("{{message}}", map[string]any{"name": "message", "kind": "custom"})},
			"validation_failed", []string{"/content/variables/0/kind"}, ""},
		{"an unknown scene", map[string]any{"name": "a", "scene": "billing", "content": tplContent("Hi")},
			"validation_failed", nil, ""},
		{"an unknown kind", map[string]any{"name": "a", "scene": "chat",
			"content": tplContent("Hi", map[string]any{"name": "x", "kind": "magic"})}, "validation_failed", nil, ""},
		{"a missing instruction", map[string]any{"name": "a", "scene": "chat", "content": map[string]any{"variables": []any{}}},
			"validation_failed", nil, ""},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			r := e.do(req{method: "POST", path: tplPath, tenant: "acme", body: tc.body})
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
			assert.Equal(t, tc.code, r.Code(t))
			if tc.fields != nil {
				assert.Equal(t, tc.fields, fieldsOf(t, r))
			}
			if tc.message != "" {
				assert.Contains(t, string(r.Body), tc.message)
			}
		})
	}
	t.Run("an update is validated too, and nothing is saved", func(t *testing.T) {
		tpl := e.createTpl("acme", "ok", "chat", tplContent("Hi"))
		r := e.do(req{method: "PUT", path: tplPath + "/" + tpl["id"].(string), tenant: "acme",
			body: map[string]any{"name": "ok", "description": "", "content": tplContent("Hi {{who}}"), "version": 1}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"/content/system_instruction"}, fieldsOf(t, r))
		assert.EqualValues(t, 1, e.do(req{method: "GET", path: tplPath + "/" + tpl["id"].(string), tenant: "acme"}).JSON(t)["latestVersion"])
	})
	t.Run("a malformed id is 400", func(t *testing.T) {
		assert.Equal(t, http.StatusBadRequest, e.do(req{method: "GET", path: tplPath + "/kb_123", tenant: "acme"}).Status)
	})
}

func TestPromptTemplatePublishAndRollback(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.createTpl("acme", "A", "chat", tplContent("A one"))
	aPath := tplPath + "/" + a["id"].(string)
	for i, text := range []string{"A two", "A three"} {
		r := e.do(req{method: "PUT", path: aPath, tenant: "acme", body: map[string]any{"name": "A", "description": "", "content": tplContent(text), "version": i + 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
	_, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "nothing published: the built-in instruction applies")
	_, err = e.app.prompts.PublishedPrompt(ctx, "acme", "chat")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "and the cache now holds that")

	t.Run("rollback with nothing published is an invalid transition", func(t *testing.T) {
		r := e.do(req{method: "POST", path: aPath + "/rollback", tenant: "acme", body: map[string]any{"version": 1}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "invalid_transition", r.Code(t))
	})
	t.Run("publishing a version the template does not have is 400", func(t *testing.T) {
		r := e.do(req{method: "POST", path: aPath + "/publish", tenant: "acme", body: map[string]any{"version": 4}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"/version"}, fieldsOf(t, r))
	})
	t.Run("publish makes the version published and the template active", func(t *testing.T) {
		r := e.do(req{method: "POST", path: aPath + "/publish", tenant: "acme", body: map[string]any{"version": 3}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 3, r.JSON(t)["publishedVersion"])
		assert.EqualValues(t, 3, r.JSON(t)["latestVersion"])
		v, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, a["id"], v.TemplateID)
		assert.Equal(t, 3, v.Version)
		assert.Equal(t, "A three", v.SystemInstruction)
		assert.Equal(t, domain.SceneChat, v.Scene)
		v, err = e.app.prompts.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, 3, v.Version, "the cache is dropped on publish, at once")
		_, err = e.app.store.PublishedPrompt(ctx, "globex", "chat")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "per tenant")
		_, err = e.app.store.PublishedPrompt(ctx, "acme", "summary")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "per scene")
	})
	t.Run("a rollback target must be earlier than the published version", func(t *testing.T) {
		r := e.do(req{method: "POST", path: aPath + "/rollback", tenant: "acme", body: map[string]any{"version": 3}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"/version"}, fieldsOf(t, r))
	})
	t.Run("rollback publishes an earlier version and keeps the history", func(t *testing.T) {
		r := e.do(req{method: "POST", path: aPath + "/rollback", tenant: "acme", body: map[string]any{"version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 1, r.JSON(t)["publishedVersion"])
		assert.EqualValues(t, 3, r.JSON(t)["latestVersion"], "later versions are kept")
		items := e.do(req{method: "GET", path: aPath + "/versions", tenant: "acme"}).JSON(t)["items"].([]any)
		require.Len(t, items, 3)
		published := map[float64]bool{}
		for _, it := range items {
			m := it.(map[string]any)
			published[m["version"].(float64)] = m["published"].(bool)
			if m["version"].(float64) == 2 {
				assert.Nil(t, m["lastPublishedAt"], "never published")
			} else {
				assert.NotNil(t, m["lastPublishedAt"])
			}
		}
		assert.Equal(t, map[float64]bool{1: true, 2: false, 3: false}, published)
		v, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, 1, v.Version)
		assert.Equal(t, "A one", v.SystemInstruction)
		v, err = e.app.prompts.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, 1, v.Version, "the cache is dropped on rollback, at once")
	})
	t.Run("saving a new version leaves the published one in use", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: aPath, tenant: "acme", body: map[string]any{"name": "A", "description": "", "content": tplContent("A four"), "version": 5}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 4, r.JSON(t)["latestVersion"])
		assert.EqualValues(t, 1, r.JSON(t)["publishedVersion"])
		v, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, 1, v.Version)
	})
	b := e.createTpl("acme", "B", "chat", tplContent("B one"))
	bPath := tplPath + "/" + b["id"].(string)
	t.Run("publishing another template of the scene makes it the active one", func(t *testing.T) {
		require.Equal(t, http.StatusOK, e.do(req{method: "POST", path: bPath + "/publish", tenant: "acme", body: map[string]any{"version": 1}}).Status)
		v, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, b["id"], v.TemplateID)
		assert.Equal(t, "B one", v.SystemInstruction)
		assert.EqualValues(t, 1, e.do(req{method: "GET", path: aPath, tenant: "acme"}).JSON(t)["publishedVersion"],
			"A keeps its published version; it is just not the scene's active template")

		require.Equal(t, http.StatusOK, e.do(req{method: "POST", path: aPath + "/publish", tenant: "acme", body: map[string]any{"version": 4}}).Status)
		v, err = e.app.store.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, a["id"], v.TemplateID, "publishing A again switches back")
		assert.Equal(t, 4, v.Version)
	})
	t.Run("deleting the active template leaves the scene on the built-in instruction", func(t *testing.T) {
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: aPath, tenant: "acme"}).Status)
		_, err := e.app.store.PublishedPrompt(ctx, "acme", "chat")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "B is not promoted behind the admin's back")
		_, err = e.app.prompts.PublishedPrompt(ctx, "acme", "chat")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "the cache is dropped on delete, at once")
	})
}

func TestPromptTemplatePreview(t *testing.T) {
	e := newEnv(t)
	settings := e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme"}).JSON(t)
	r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"name": "ACME Support"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "UTC", settings["timezone"], "the default zone")
	update := map[string]any{}
	for _, k := range []string{"transferConfidenceThreshold", "minHits", "minTopScore", "minEvidenceTokens", "retrievalScoreThreshold",
		"kb_vector_log_enabled", "kb_vector_log_path", "version"} {
		update[k] = settings[k]
	}
	update["frontend_base_url"], update["timezone"] = nil, "Asia/Shanghai"
	require.Equal(t, http.StatusOK, e.do(req{method: "PUT", path: "/api/v1/admin/settings", tenant: "acme", body: update}).Status)

	tpl := e.createTpl("acme", "Support", "chat", tplContent(
		"You are {{tenant_name}}'s assistant; it is {{current_time}}. Tone: {{tone}}. Order: {{order_id}}. Customer: {{message}}.{{ps}}",
		map[string]any{"name": "tenant_name", "kind": "builtin", "required": true},
		map[string]any{"name": "current_time", "kind": "builtin"},
		map[string]any{"name": "message", "kind": "builtin"},
		map[string]any{"name": "tone", "kind": "custom", "default": "warm"},
		map[string]any{"name": "order_id", "kind": "custom", "required": true},
		map[string]any{"name": "ps", "kind": "custom"},
	))
	path := tplPath + "/" + tpl["id"].(string) + "/preview"

	t.Run("built-ins, values and defaults are filled and reported", func(t *testing.T) {
		before := time.Now().Add(-time.Second)
		r := e.do(req{method: "POST", path: path, tenant: "acme",
			body: map[string]any{"values": map[string]any{"order_id": "A-42", "message": "where is it?"}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		p := r.JSON(t)
		text := p["text"].(string)
		assert.True(t, strings.HasPrefix(text, "You are ACME Support's assistant; it is "), text)
		assert.True(t, strings.HasSuffix(text, ". Tone: warm. Order: A-42. Customer: where is it?."), text)
		at := strings.TrimSuffix(strings.TrimPrefix(text, "You are ACME Support's assistant; it is "), ". Tone: warm. Order: A-42. Customer: where is it?.")
		assert.True(t, strings.HasSuffix(at, "+08:00"), "current_time is in the tenant's zone: %s", at)
		when, err := time.Parse(time.RFC3339, at)
		require.NoError(t, err)
		assert.WithinRange(t, when, before, time.Now().Add(time.Second))
		assert.Greater(t, p["tokens"].(float64), float64(20))
		assert.EqualValues(t, 1, p["version"], "the latest when nothing is published")
		assert.Equal(t, []any{
			map[string]any{"name": "current_time", "source": "builtin"},
			map[string]any{"name": "message", "source": "value"},
			map[string]any{"name": "order_id", "source": "value"},
			map[string]any{"name": "tenant_name", "source": "builtin"},
			map[string]any{"name": "tone", "source": "default"},
		}, p["filled"])
		assert.Equal(t, []any{"ps"}, p["unfilled"])
	})
	t.Run("a required variable left unfilled is 400 naming it", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"values": map[string]any{"tone": "dry"}}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Equal(t, []string{"/values/order_id"}, fieldsOf(t, r))
		assert.Contains(t, r.JSON(t)["detail"], "order_id")
	})
	t.Run("a value for an undeclared variable is 400", func(t *testing.T) {
		r := e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"values": map[string]any{"order_id": "1", "ordr": "x"}}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"/values/ordr"}, fieldsOf(t, r))
	})
	t.Run("the version defaults to the published one; any can be asked for", func(t *testing.T) {
		id := tpl["id"].(string)
		r := e.do(req{method: "PUT", path: tplPath + "/" + id, tenant: "acme",
			body: map[string]any{"name": "Support", "description": "", "content": tplContent("Version two."), "version": 1}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		p := e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{}}).JSON(t)
		assert.Equal(t, "Version two.", p["text"], "the latest when nothing is published")
		assert.EqualValues(t, 3, p["tokens"], `"Version", " two", "."`)

		require.Equal(t, http.StatusOK, e.do(req{method: "POST", path: tplPath + "/" + id + "/publish", tenant: "acme", body: map[string]any{"version": 1}}).Status)
		r = e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"values": map[string]any{"order_id": "7"}}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.EqualValues(t, 1, r.JSON(t)["version"], "the published one")

		p = e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"version": 2}}).JSON(t)
		assert.EqualValues(t, 2, p["version"])
		r = e.do(req{method: "POST", path: path, tenant: "acme", body: map[string]any{"version": 3}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"/version"}, fieldsOf(t, r))
	})
}

func TestTenantTimezoneSetting(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/admin/settings"
	s := e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)
	body := map[string]any{}
	for _, k := range []string{"transferConfidenceThreshold", "minHits", "minTopScore", "minEvidenceTokens", "retrievalScoreThreshold",
		"frontend_base_url", "kb_vector_log_enabled", "kb_vector_log_path"} {
		body[k] = s[k]
	}
	body["version"], body["timezone"] = 1, "Mars/Olympus_Mons"
	r := e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, []string{"/timezone"}, fieldsOf(t, r))

	body["timezone"] = "America/New_York"
	r = e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "America/New_York", r.JSON(t)["timezone"])

	delete(body, "timezone")
	body["version"], body["minHits"] = 2, 3
	r = e.do(req{method: "PUT", path: path, tenant: "acme", body: body})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "America/New_York", r.JSON(t)["timezone"], "an absent zone keeps the current one")
	assert.EqualValues(t, 3, r.JSON(t)["minHits"])

	st, err := e.app.store.GetSettings(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "America/New_York", st.Location().String(), "the message pipeline reads the zone from the settings store")
}

func TestPromptTemplateMonitoring(t *testing.T) {
	e := newEnv(t)
	a := e.createTpl("acme", "A", "chat", tplContent("A"))
	aID := a["id"].(string)
	e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "globex"}) // globex exists from its first request
	now := time.Now().UTC()
	rec := func(tenant domain.TenantID, id string, v int, scene string, tokens int, fallback bool, at time.Time) domain.PromptRender {
		return domain.PromptRender{TenantID: tenant, TemplateID: id, Version: v, Scene: scene, Tokens: tokens, Fallback: fallback, At: at}
	}
	require.NoError(t, e.app.store.RecordPromptRenders(t.Context(), []domain.PromptRender{
		rec("acme", aID, 1, "chat", 100, false, now.Add(-time.Hour)),
		rec("acme", aID, 1, "chat", 51, false, now.Add(-2*time.Hour)),
		rec("acme", aID, 1, "chat", 60, true, now.Add(-3*time.Hour)),
		rec("acme", aID, 2, "chat", 80, false, now.Add(-time.Hour)),
		rec("acme", aID, 1, "rag_lab", 90, false, now.Add(-time.Hour)),
		rec("acme", "tpl_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c", 3, "summary", 40, false, now.Add(-time.Hour)),
		rec("acme", aID, 1, "chat", 1000, false, now.Add(-8*24*time.Hour)),
		rec("globex", aID, 1, "chat", 999, false, now.Add(-time.Hour)),
	}))
	path := "/api/v1/admin/monitoring/prompt-templates"

	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	m := r.JSON(t)
	type row struct {
		id, scene                        string
		version, renders, fallbacks, tot float64
		avg                              float64
		name                             any
	}
	var rows []row
	for _, it := range m["items"].([]any) {
		x := it.(map[string]any)
		rows = append(rows, row{id: x["templateId"].(string), scene: x["scene"].(string), version: x["version"].(float64),
			renders: x["renders"].(float64), fallbacks: x["fallbacks"].(float64), tot: x["tokensTotal"].(float64),
			avg: x["tokensAvg"].(float64), name: x["templateName"]})
	}
	ids := []string{aID, "tpl_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c"}
	if ids[1] < ids[0] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	want := []row{
		{id: aID, scene: "chat", version: 2, renders: 1, tot: 80, avg: 80, name: "A"},
		{id: aID, scene: "chat", version: 1, renders: 3, fallbacks: 1, tot: 211, avg: 70.33, name: "A"},
		{id: aID, scene: "rag_lab", version: 1, renders: 1, tot: 90, avg: 90, name: "A"},
	}
	gone := row{id: "tpl_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c", scene: "summary", version: 3, renders: 1, tot: 40, avg: 40, name: nil}
	if ids[0] == aID {
		want = append(want, gone)
	} else {
		want = append([]row{gone}, want...)
	}
	assert.Equal(t, want, rows, "the last 7 days of this tenant, per template version and scene")
	assert.Equal(t, []any{
		map[string]any{"scene": "chat", "renders": 4.0, "fallbacks": 1.0, "tokensTotal": 291.0, "tokensAvg": 72.75},
		map[string]any{"scene": "rag_lab", "renders": 1.0, "fallbacks": 0.0, "tokensTotal": 90.0, "tokensAvg": 90.0},
		map[string]any{"scene": "summary", "renders": 1.0, "fallbacks": 0.0, "tokensTotal": 40.0, "tokensAvg": 40.0},
	}, m["scenes"])
	from, err := time.Parse(time.RFC3339, m["from"].(string))
	require.NoError(t, err)
	to, err := time.Parse(time.RFC3339, m["to"].(string))
	require.NoError(t, err)
	assert.Equal(t, 7*24*time.Hour, to.Sub(from))

	t.Run("a period and a scene narrow it", func(t *testing.T) {
		q := path + "?scene=chat&from=" + now.Add(-9*24*time.Hour).Format(time.RFC3339) + "&to=" + now.Add(-90*time.Minute).Format(time.RFC3339)
		m := e.do(req{method: "GET", path: q, tenant: "acme"}).JSON(t)
		assert.Equal(t, []any{map[string]any{"scene": "chat", "renders": 3.0, "fallbacks": 1.0, "tokensTotal": 1111.0, "tokensAvg": 370.33}}, m["scenes"])
	})
	t.Run("from after to is 400", func(t *testing.T) {
		q := path + "?from=" + now.Format(time.RFC3339) + "&to=" + now.Add(-time.Hour).Format(time.RFC3339)
		r := e.do(req{method: "GET", path: q, tenant: "acme"})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"query.from"}, fieldsOf(t, r))
	})
	t.Run("a range over 366 days is 400, as in the other monitoring", func(t *testing.T) {
		q := path + "?from=" + now.AddDate(-2, 0, 0).Format(time.RFC3339)
		r := e.do(req{method: "GET", path: q, tenant: "acme"})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, []string{"query.from"}, fieldsOf(t, r))
	})
	t.Run("another tenant sees only its own renders", func(t *testing.T) {
		m := e.do(req{method: "GET", path: path, tenant: "globex"}).JSON(t)
		require.Len(t, m["items"], 1)
		it := m["items"].([]any)[0].(map[string]any)
		assert.EqualValues(t, 999, it["tokensTotal"])
		assert.Nil(t, it["templateName"], "acme's template name does not leak")
	})
}
