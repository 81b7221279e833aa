// Command demo walks through the main job on a running service (`make
// run`), on its offline defaults, touching no setting: it uploads the
// sample product FAQ, asks the RAG lab a covered question in English and in
// Chinese (cited answers) and an uncovered one (an honest hand-off), shows
// a risky strategy's report without switching to it, and holds a short
// conversation. `make demo` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/eval"
)

// client is the eval package's API client, failing the demo on any error.
type client struct {
	api eval.Client
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
	c := client{api: eval.Client{Base: *base, Key: key, Tenant: *tenant, HTTP: &http.Client{Timeout: time.Minute}}}

	step("Create a knowledge base")
	var kb map[string]any
	c.call("POST", "/admin/kb/knowledge-bases", map[string]any{"name": "Product FAQ " + time.Now().Format("150405")}, &kb)
	fmt.Println("  ", kb["id"])

	step("Upload the sample FAQ (English and Chinese PDFs) and watch the index jobs")
	for _, name := range []string{"product-faq-en.pdf", "product-faq-zh.pdf"} {
		data, err := os.ReadFile(filepath.Join(*samples, name))
		if err != nil {
			fail("%v (run from the repository root)", err)
		}
		job, err := c.api.Upload(context.Background(), kb["id"].(string), name, data)
		if err != nil {
			fail("%v (is `make run` running?)", err)
		}
		fmt.Printf("   %s: %s, %d chunks\n", name, job.State, job.Progress.Total)
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

// call sends a request; any error ends the demo.
func (c client) call(method, path string, body, out any) {
	if err := c.api.Call(context.Background(), method, path, body, out); err != nil {
		fail("%v (is `make run` running?)", err)
	}
}

func step(s string) { fmt.Println("\n== " + s) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "demo: "+format+"\n", args...)
	os.Exit(1)
}
