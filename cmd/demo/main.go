// Command demo walks through the main job on a running service (`make
// run`), on its offline defaults, touching no setting: it uploads the
// sample product FAQ, asks the RAG lab a covered question in English and in
// Chinese (cited answers) and an uncovered one (an honest hand-off), shows
// a risky strategy's report without switching to it, and holds a short
// conversation. `make demo` runs it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type client struct {
	base, key, tenant string
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080/api/v1", "the API's base URL")
	keyFile := flag.String("key-file", ".data/default-api-key", "file holding an admin API key (or set ASSISTANT_API_KEY)")
	tenant := flag.String("tenant", "demo", "tenant to run the demo in")
	samples := flag.String("samples", "samples/faq", "folder of the sample FAQ")
	flag.Parse()
	key := os.Getenv("ASSISTANT_API_KEY")
	if key == "" {
		b, err := os.ReadFile(*keyFile)
		if err != nil {
			fail("no API key: set ASSISTANT_API_KEY or start the service once with `make run` (%v)", err)
		}
		key = strings.TrimSpace(string(b))
	}
	c := client{base: *base, key: key, tenant: *tenant}

	step("Create a knowledge base")
	var kb map[string]any
	if code := c.call("POST", "/admin/kb/knowledge-bases", map[string]any{"name": "Product FAQ " + time.Now().Format("150405")}, &kb); code != 201 {
		fail("creating the knowledge base answered %d", code)
	}
	fmt.Println("  ", kb["id"])

	step("Upload the sample FAQ (English and Chinese PDFs) and watch the index jobs")
	for _, name := range []string{"product-faq-en.pdf", "product-faq-zh.pdf"} {
		job := c.upload(kb["id"].(string), filepath.Join(*samples, name))
		done := c.wait(job)
		fmt.Printf("   %s: %s, %v chunks\n", name, done["state"], done["progress"].(map[string]any)["total"])
	}

	step("Assess a risky strategy without switching")
	risky := strategy(map[string]any{"scoreThreshold": 0.05, "topK": 40, "maxEvidenceTokens": 30000})
	var report map[string]any
	c.call("POST", "/strategy/retrieval/validate", risky, &report)
	for _, f := range report["findings"].([]any) {
		m := f.(map[string]any)
		fmt.Printf("   [%s] %s: %s\n", m["level"], m["code"], m["reason"])
	}

	step("The strategy is the default, untouched: it follows the embedder")
	var cur map[string]any
	c.call("GET", "/strategy/retrieval/current", nil, &cur)
	fmt.Printf("   %s retrieval, lexical weight %.1f, score threshold %.2f, min answerability %.2f\n",
		cur["mode"], cur["lexicalWeight"], cur["scoreThreshold"], cur["minAnswerability"])

	for _, q := range []string{"How long do approved refunds take to reach my payment method?", "退款审核通过后多久退回？", "Do you sell concert tickets?"} {
		step("Ask the lab: " + q)
		var out map[string]any
		c.call("POST", "/admin/rag/experiments/run", map[string]any{"query": q, "generate": true}, &out)
		if out["shouldTransfer"] == true {
			r := out["transferReason"].(map[string]any)
			fmt.Printf("   hand-off: %s (hits %v, top relevance %.2f vs %.2f, answerability %.2f vs %.2f, confidence %.2f vs %.2f)\n",
				r["code"], r["hits"], r["topScore"], r["minTopScore"], r["answerability"], r["minAnswerability"], r["confidence"], r["threshold"])
			continue
		}
		fmt.Printf("   answer (%s, confidence %.2f):\n     %s\n", out["model"], out["confidence"], strings.ReplaceAll(fmt.Sprint(out["answer"]), "\n", "\n     "))
		for _, ci := range out["citations"].([]any) {
			m := ci.(map[string]any)
			fmt.Printf("   [%v] %s, page %v (relevance %.2f): %q\n", m["index"], m["documentName"], m["page"], m["score"], m["quote"])
		}
	}

	c.conversation()

}

// strategy is a full strategy body: the defaults with over applied.
func strategy(over map[string]any) map[string]any {
	s := map[string]any{"mode": "hybrid", "topK": 5, "scoreThreshold": 0.25, "lexicalWeight": 0.7, "maxEvidenceTokens": 2000,
		"minHits": 1, "minTopScore": 0.25, "minEvidenceTokens": 20, "transferConfidenceThreshold": 0.35, "minAnswerability": 0.4}
	for k, v := range over {
		s[k] = v
	}
	return s
}

func (c client) call(method, path string, body, out any) int {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.do(req, out)
}

func (c client) do(req *http.Request, out any) int {
	req.Header.Set("X-API-Key", c.key)
	req.Header.Set("X-Tenant-Id", c.tenant)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fail("%v (is `make run` running?)", err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		fail("%s %s answered %d: %s", req.Method, req.URL.Path, res.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			fail("%s %s: %v", req.Method, req.URL.Path, err)
		}
	}
	return res.StatusCode
}

func (c client) upload(kbID, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("%v (run from the repository root)", err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("kbId", kbID)
	part, _ := w.CreateFormFile("file", filepath.Base(path))
	_, _ = part.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest("POST", c.base+"/admin/kb/documents", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	var out map[string]any
	c.do(req, &out)
	return out["job"].(map[string]any)["id"].(string)
}

func (c client) wait(jobID string) map[string]any {
	for range 600 {
		var job map[string]any
		c.call("GET", "/admin/kb/index/jobs/"+jobID, nil, &job)
		if job["state"] == "succeeded" || job["state"] == "failed" {
			return job
		}
		time.Sleep(100 * time.Millisecond)
	}
	fail("job %s did not finish in a minute", jobID)
	return nil
}

func step(s string) { fmt.Println("\n== " + s) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "demo: "+format+"\n", args...)
	os.Exit(1)
}
