package main

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"time"

	"github.com/stretchr/testify/require"
)

// upload is one multipart upload.
type upload struct {
	kbID, fileName, partName, metadata string
	content                            []byte
	tenant, key                        string
}

// upload sends the form and checks the answer against the contract.
func (e *env) upload(u upload) response {
	e.t.Helper()
	return e.uploadWith(u, nil)
}

// uploadWith sends the form with extra headers.
func (e *env) uploadWith(u upload, header map[string]string) response {
	e.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if u.kbID != "" {
		require.NoError(e.t, w.WriteField("kbId", u.kbID))
	}
	if u.metadata != "" {
		require.NoError(e.t, w.WriteField("metadata", u.metadata))
	}
	if u.fileName != "" {
		require.NoError(e.t, w.WriteField("fileName", u.fileName))
	}
	if u.content != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="`+u.partName+`"`)
		h.Set("Content-Type", "application/octet-stream")
		part, err := w.CreatePart(h)
		require.NoError(e.t, err)
		_, err = part.Write(u.content)
		require.NoError(e.t, err)
	}
	require.NoError(e.t, w.Close())
	tenant := u.tenant
	if tenant == "" {
		tenant = "acme"
	}
	return e.do(req{method: "POST", path: "/api/v1/admin/kb/documents", key: u.key, tenant: tenant,
		body: body.Bytes(), contentType: w.FormDataContentType(), header: header})
}

// waitJob polls a job until it has finished and returns it.
func (e *env) waitJob(tenant, jobID string) map[string]any {
	e.t.Helper()
	var job map[string]any
	require.Eventually(e.t, func() bool {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/index/jobs/" + jobID, tenant: tenant})
		require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
		job = r.JSON(e.t)
		return job["state"] == "succeeded" || job["state"] == "failed"
	}, 60*time.Second, 50*time.Millisecond, "job %s never finished", jobID)
	return job
}

// uploadAndWait uploads, checks the 202, and waits for the job.
func (e *env) uploadAndWait(u upload) (doc, job map[string]any) {
	e.t.Helper()
	r := e.upload(u)
	require.Equal(e.t, http.StatusAccepted, r.Status, "%s", r.Body)
	accepted := r.JSON(e.t)
	doc = accepted["document"].(map[string]any)
	tenant := u.tenant
	if tenant == "" {
		tenant = "acme"
	}
	return doc, e.waitJob(tenant, accepted["job"].(map[string]any)["id"].(string))
}

// chunks lists every chunk of a document.
func (e *env) chunks(tenant, docID string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	path := "/api/v1/admin/kb/documents/" + docID + "/chunks?limit=200"
	for {
		r := e.do(req{method: "GET", path: path, tenant: tenant})
		require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
		body := r.JSON(e.t)
		for _, it := range body["items"].([]any) {
			out = append(out, it.(map[string]any))
		}
		next, ok := body["nextCursor"].(string)
		if !ok {
			return out
		}
		path = "/api/v1/admin/kb/documents/" + docID + "/chunks?limit=200&cursor=" + next
	}
}

// search calls the kb-search tool.
func (e *env) search(tenant string, body map[string]any) response {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/api/v1/chat/tools/kb-search", tenant: tenant, body: body})
}
