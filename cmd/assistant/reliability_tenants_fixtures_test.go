package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// idSource resolves the ids a request names, in one tenant.
type idSource struct {
	tenant string
	// ids is keyed by parameter or field name (kbId, docId, documentId);
	// a name that means different resources under different collections
	// is keyed "collection/name" for all but one ("behavior-rules/ruleId").
	ids map[string]string
	// order is the keys in the order their resources were created.
	order []string
}

// lookup resolves name as used in the contract path: the qualified key
// first (the path segment before the parameter), then the bare name. A
// plural name (kbIds) resolves its singular.
func (s idSource) lookup(path, name string) (string, bool) {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if seg == "{"+name+"}" && i > 0 {
			if v, ok := s.ids[segs[i-1]+"/"+name]; ok {
				return v, true
			}
		}
	}
	if v, ok := s.ids[name]; ok {
		return v, true
	}
	if single, ok := strings.CutSuffix(name, "s"); ok && strings.HasSuffix(single, "Id") {
		return s.lookup(path, single)
	}
	return "", false
}

// put records a resource's id under one or more names.
func (s *idSource) put(id string, names ...string) {
	for _, n := range names {
		s.ids[n] = id
		s.order = append(s.order, n)
	}
}

// createdAt is where name's resource comes in the creation order (-1 when
// it is not a fixture).
func (s idSource) createdAt(path, name string) int {
	want, ok := s.lookup(path, name)
	if !ok {
		return -1
	}
	for i, k := range s.order {
		if s.ids[k] == want {
			return i
		}
	}
	return -1
}

// ghost is an idSource of the same shapes that name nothing: every id
// keeps its prefix ("kb_") with new random hex, the tenant is one that does
// not exist. A request that names another tenant's resource must be
// answered as if it named one of these.
func (s idSource) ghost() idSource {
	g := idSource{tenant: s.tenant, ids: map[string]string{}, order: s.order}
	for k, v := range s.ids {
		if i := strings.LastIndex(v, "_"); i > 0 {
			g.ids[k] = v[:i+1] + randomHexDigits(len(v)-i-1)
		} else {
			g.ids[k] = "ghost-" + randomHexDigits(8)
		}
	}
	return g
}

// randomHexDigits is n random lower-case hex digits.
func randomHexDigits(n int) string {
	b := make([]byte, (n+1)/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// tenantFixtures is one resource of every kind a path parameter or a
// request field can name, created in one tenant through the API.
type tenantFixtures struct {
	idSource
	// marker is written into the tenant's resources (names, document text,
	// messages): another tenant's answer that holds it is a leak.
	marker string
}

// buildTenantFixtures creates, with the root key in tenant, one resource
// of each kind the contract's operations name, from the contract's own
// examples: a key, a metadata field, a knowledge base with an indexed
// document (and its job), a script flow, an intent rule, a prompt
// template with three versions (the third published), a forbidden word, a
// behaviour rule, a chat session with one exchange and a share link of it.
func buildTenantFixtures(t *testing.T, e *env, spec specOps, tenant string) *tenantFixtures {
	t.Helper()
	f := &tenantFixtures{idSource: idSource{tenant: tenant, ids: map[string]string{}}, marker: "zq" + randomHexDigits(12) + "zq"}
	f.put(tenant, "tenantId")
	keyID, _ := e.createKey(ptr(tenant), "chat")
	f.put(keyID, "keyId")
	f.put(f.create(t, e, spec, "createMetadataField", nil), "fieldId")
	f.put(f.create(t, e, spec, "createKnowledgeBase", map[string]any{"name": "kb " + f.marker, "description": f.marker}), "kbId")
	doc, job := e.uploadAndWait(upload{kbID: f.ids["kbId"], fileName: "notes.txt", partName: "notes.txt", tenant: tenant,
		content: []byte("Refunds are paid within five days. The secret word is " + f.marker + ".\n")})
	require.Equal(t, "succeeded", job["state"], "%v", job)
	f.put(doc["id"].(string), "docId", "documentId")
	f.put(job["id"].(string), "jobId")
	f.put(f.create(t, e, spec, "createScriptFlow", map[string]any{"description": f.marker}), "flowId")
	f.put(f.create(t, e, spec, "createIntentRule", map[string]any{"fixedText": f.marker}), "ruleId")
	f.put(f.promptTemplate(t, e, spec), "tplId")
	f.put(f.create(t, e, spec, "createForbiddenWord", nil), "wordId")
	f.put(f.create(t, e, spec, "createBehaviorRule", map[string]any{"text": f.marker}), "behavior-rules/ruleId")
	f.put(f.create(t, e, spec, "createChatSession", nil), "sessionId")
	f.shareLink(t, e, spec)
	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + f.ids["sessionId"] + "/messages", tenant: tenant,
		body: map[string]any{"message": "How long does a refund take? " + f.marker}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	f.put(r.JSON(t)["traceId"].(string), "traceId") // the reply's, for the conversation trace
	// The customer asks for a person: the session waits in the agents'
	// queue, for the hand-off operations.
	r = e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + f.ids["sessionId"] + "/messages", tenant: tenant,
		body: map[string]any{"message": "I want to talk to a human"}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	f.slotFixtures(t, e, spec)
	return f
}

// create posts the operation's example body, with overrides, and returns
// the new resource's id.
func (f *tenantFixtures) create(t *testing.T, e *env, spec specOps, opID string, overrides map[string]any) string {
	t.Helper()
	op := spec.byID(t, opID)
	body := futureTimes(op.Body, synthValue(op.Body)).(map[string]any)
	for k, v := range overrides {
		body[k] = v
	}
	r := e.do(req{method: op.Method, path: "/api/v1" + op.Path, tenant: f.tenant, body: body})
	require.Equal(t, http.StatusCreated, r.Status, "%s: %s", opID, r.Body)
	return r.JSON(t)["id"].(string)
}

// promptTemplate creates a template from the contract's example, gives it
// versions 2 and 3 (which also declare the built-in variable message) and
// publishes 3, so that the examples of publish (2), rollback (2) and
// preview (3, filling message) name versions and variables it has.
func (f *tenantFixtures) promptTemplate(t *testing.T, e *env, spec specOps) string {
	t.Helper()
	id := f.create(t, e, spec, "createPromptTemplate", map[string]any{"description": f.marker})
	path := "/api/v1/admin/prompt-templates/" + id
	update := synthValue(spec.byID(t, "updatePromptTemplate").Body).(map[string]any)
	content := update["content"].(map[string]any)
	content["system_instruction"] = content["system_instruction"].(string) + " The customer said: {{message}}"
	content["variables"] = append(content["variables"].([]any), map[string]any{"name": "message", "kind": "builtin"})
	for version, suffix := range []string{" Be kind.", " Be brief."} {
		content["system_instruction"] = content["system_instruction"].(string) + suffix
		update["version"] = version + 1
		r := e.do(req{method: "PUT", path: path, tenant: f.tenant, body: update})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	}
	r := e.do(req{method: "POST", path: path + "/publish", tenant: f.tenant, body: map[string]any{"version": 3}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return id
}

// shareLink makes a share link of the fixture session from the contract's
// example, recording its id (shareId) and its token (shareToken, the
// public share page's path parameter).
func (f *tenantFixtures) shareLink(t *testing.T, e *env, spec specOps) {
	t.Helper()
	op := spec.byID(t, "createShare")
	r := e.do(req{method: op.Method, path: "/api/v1/chat/sessions/" + f.ids["sessionId"] + "/shares", tenant: f.tenant,
		body: synthValue(op.Body)})
	require.Equal(t, http.StatusCreated, r.Status, "createShare: %s", r.Body)
	share := r.JSON(t)
	f.put(share["id"].(string), "shareId")
	f.put(share["token"].(string), "shareToken")
}
