package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
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

// Call sends a JSON request (body nil: none) and decodes a JSON answer
// into out (nil: ignored); an answer of 400 or more is an error with its
// body.
func (c Client) Call(ctx context.Context, method, path string, body, out any) error {
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
	var res *http.Response
	var data []byte
	// The platform key's rate limit (requests per minute) is shared by
	// every dataset run in parallel: a 429 is waited out and retried (a
	// minute at most), never counted as an outcome.
	for attempt := 0; ; attempt++ {
		var err error
		if res, err = c.HTTP.Do(req); err != nil {
			return err
		}
		data, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode != http.StatusTooManyRequests || attempt >= 60 || (req.Body != nil && req.GetBody == nil) {
			break
		}
		wait := time.Second
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-req.Context().Done():
			return req.Context().Err()
		case <-time.After(wait):
		}
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return err
			}
			req.Body = body
		}
	}
	if res.StatusCode >= 400 {
		return fmt.Errorf("%s %s answered %d: %s", req.Method, req.URL.Path, res.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// Job is a finished index job.
type Job struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Progress struct {
		Total int `json:"total"`
	} `json:"progress"`
}

// Upload sends a document to a knowledge base and waits (a minute at most)
// for its index job to succeed; a failed job is an error.
func (c Client) Upload(ctx context.Context, kbID, name string, data []byte) (Job, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField("kbId", kbID); err != nil {
		return Job{}, err
	}
	part, err := w.CreateFormFile("file", name)
	if err != nil {
		return Job{}, err
	}
	if _, err := part.Write(data); err != nil {
		return Job{}, err
	}
	if err := w.Close(); err != nil {
		return Job{}, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", c.Base+"/admin/kb/documents", &body)
	if err != nil {
		return Job{}, err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	var out struct {
		Job Job `json:"job"`
	}
	if err := c.do(req, &out); err != nil {
		return Job{}, err
	}
	for range 1200 {
		var job struct {
			Job
			Detail *string `json:"detail"`
		}
		if err := c.Call(ctx, "GET", "/admin/kb/index/jobs/"+out.Job.ID, nil, &job); err != nil {
			return Job{}, err
		}
		switch job.State {
		case "succeeded":
			return job.Job, nil
		case "failed":
			return job.Job, fmt.Errorf("indexing %s failed: %v", name, job.Detail)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return Job{}, fmt.Errorf("indexing %s did not finish in a minute", name)
}
