package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"time"
)

// Client calls a running service as one tenant.
type Client struct {
	// Base is the API's base URL, e.g. http://127.0.0.1:8080/api/v1.
	Base   string
	Key    string
	Tenant string
	HTTP   *http.Client
}

// call sends a JSON request and decodes a JSON answer into out; an answer
// of 400 or more is an error with its body.
func (c Client) call(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.do(req, out)
}

func (c Client) do(req *http.Request, out any) error {
	req.Header.Set("X-API-Key", c.Key)
	req.Header.Set("X-Tenant-Id", c.Tenant)
	res, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode >= 400 {
		return fmt.Errorf("%s %s answered %d: %s", req.Method, req.URL.Path, res.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// upload sends a document to a knowledge base and waits for its index job.
func (c Client) upload(ctx context.Context, kbID, name string, data []byte) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("kbId", kbID); err != nil {
		return err
	}
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		return err
	}
	if _, err := part.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.Base+"/admin/kb/documents", &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	var out struct {
		Job struct {
			ID string `json:"id"`
		} `json:"job"`
	}
	if err := c.do(req, &out); err != nil {
		return err
	}
	for range 1200 {
		var job struct {
			State  string  `json:"state"`
			Detail *string `json:"detail"`
		}
		if err := c.call(ctx, "GET", "/admin/kb/index/jobs/"+out.Job.ID, nil, &job); err != nil {
			return err
		}
		switch job.State {
		case "succeeded":
			return nil
		case "failed":
			return fmt.Errorf("indexing %s failed: %v", name, job.Detail)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("indexing %s did not finish in a minute", name)
}
