package eval

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/pg"
)

// update rewrites baseline.json from this run (after a real improvement).
var update = flag.Bool("eval.update", false, "write this run's figures to baseline.json")

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// TestEval runs every dataset through a real service on its offline
// defaults, prints the table, and fails when a guarded figure drops below
// baseline.json. EVAL_STRATEGY (a JSON object of strategy fields) explores
// other thresholds; its figures are reported, not guarded. With
// EVAL_LLM_BASE_URL and EVAL_LLM_MODEL (and
// EVAL_LLM_API_KEY) set, every tenant's chat model is that
// OpenAI-compatible endpoint, and the figures are reported, not guarded.
func TestEval(t *testing.T) {
	c := startService(t)
	model := modelFromEnv()
	var st Strategy
	if v := os.Getenv("EVAL_STRATEGY"); v != "" {
		require.NoError(t, json.Unmarshal([]byte(v), &st), "EVAL_STRATEGY")
	}
	for _, set := range []struct{ name, dir string }{{"main", "datasets"}, {"held-out", "datasets/heldout"}} {
		ds, err := Load(set.dir)
		require.NoError(t, err)
		require.NotEmpty(t, ds)
		outs := runAll(t, c, set.name, ds, model, st)
		rows := Tallies(outs)
		var detail strings.Builder
		for _, o := range outs {
			detail.WriteString(o.Describe() + "\n")
		}
		t.Logf("%s set, every question:\n%s", set.name, detail.String())
		if path := os.Getenv("EVAL_DUMP"); path != "" && set.name == "main" {
			dump(t, path, outs)
		}
		fmt.Printf("\n## make eval: %s set (%s)\n\n%s\n%s\n%s\n", set.name, modelName(model), Table(rows), Summary(rows), Overall(rows))
		if model == nil && st == nil {
			guard(t, set.name, rows)
		}
	}
}

// runAll runs each dataset in a tenant of its own, in parallel.
func runAll(t *testing.T, c Client, set string, ds []Dataset, model Model, st Strategy) []Outcome {
	results := make([][]Outcome, len(ds))
	var wg sync.WaitGroup
	for i, d := range ds {
		wg.Go(func() {
			dc := c
			dc.Tenant = strings.ReplaceAll("eval-"+strings.ReplaceAll(set, "-", "")+"-"+d.Name, "_", "-")
			outs, err := RunDataset(t.Context(), dc, d, model, st)
			assert.NoError(t, err, d.Name)
			results[i] = outs
		})
	}
	wg.Wait()
	require.False(t, t.Failed())
	var all []Outcome
	for _, r := range results {
		all = append(all, r...)
	}
	return all
}

// dump writes the RAG lab's outcomes as JSON lines, for exploring
// thresholds (EVAL_DUMP=path).
func dump(t *testing.T, path string, outs []Outcome) {
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, o := range outs {
		if o.Channel != ChannelRAGLab {
			continue
		}
		require.NoError(t, enc.Encode(map[string]any{"dataset": o.Dataset.Name, "q": o.Question.Q, "kind": o.Question.Kind,
			"covered": o.Question.Covered, "topRight": o.Question.Covered && o.Question.answeredBy(o.Top.Text),
			"top": o.Top, "transfer": o.Transfer, "right": o.Right()}))
	}
}

// guard fails the test where a row's figure is below the baseline, or its
// citation misses above it.
func guard(t *testing.T, set string, rows []Tally) {
	path := "baseline.json"
	base := map[string]map[string]Floor{}
	if b, err := os.ReadFile(path); err == nil {
		require.NoError(t, json.Unmarshal(b, &base))
	}
	if *update {
		cur := map[string]Floor{}
		for _, r := range rows {
			cur[r.Key()] = Floor{Rate: r.Rate(), CitationMisses: r.CitationMisses}
		}
		base[set] = cur
		b, err := json.MarshalIndent(base, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
		return
	}
	floors := base[set]
	require.NotEmpty(t, floors, "no baseline for the %s set: run make eval-update", set)
	seen := map[string]bool{}
	for _, r := range rows {
		f, ok := floors[r.Key()]
		if !assert.True(t, ok, "%s: a row without a baseline (run make eval-update)", r.Key()) {
			continue
		}
		seen[r.Key()] = true
		assert.GreaterOrEqual(t, r.Rate()+1e-9, f.Rate, "%s: the figure dropped below the baseline", r.Key())
		assert.LessOrEqual(t, r.CitationMisses, f.CitationMisses, "%s: more answers cite no chunk holding the answer", r.Key())
	}
	for k := range floors {
		assert.True(t, seen[k], "%s: a baseline row this run did not produce", k)
	}
}

// Floor is a row's guarded level: the least rate, the most citation misses.
type Floor struct {
	Rate           float64 `json:"rate"`
	CitationMisses int     `json:"citationMisses"`
}

// Overall is the whole set's two figures on one line: covered questions
// answered right (disjoint paraphrases apart), uncovered ones handed off.
func Overall(rows []Tally) string {
	var cov, covRight, dis, disRight, unc, uncOff, miss int
	for _, r := range rows {
		switch r.Group {
		case GroupCovered:
			cov, covRight = cov+r.N, covRight+r.Right
		case GroupDisjoint:
			dis, disRight = dis+r.N, disRight+r.Right
		case GroupUncovered:
			unc, uncOff = unc+r.N, uncOff+r.Handoff
		}
		miss += r.CitationMisses
	}
	return fmt.Sprintf("overall: covered answered right %s, disjoint paraphrases right %s, uncovered handed off %s, citation misses %d",
		pct(covRight, cov), pct(disRight, dis), pct(uncOff, unc), miss)
}

// Summary adds the rows up by kind of document and language.
func Summary(rows []Tally) string {
	type key struct{ kind, channel, group string }
	sum := map[key]*Tally{}
	var keys []key
	for _, r := range rows {
		if r.Group == GroupNearMiss {
			continue
		}
		kind := "prose"
		if strings.HasPrefix(r.Dataset, "faq") || strings.Contains(r.Dataset, "_faq") {
			kind = "faq"
		} else if strings.Contains(r.Dataset, "xlsx") {
			kind = "table"
		}
		k := key{kind + " (" + r.Language + ")", r.Channel, r.Group}
		s, ok := sum[k]
		if !ok {
			s = &Tally{Dataset: k.kind, Channel: k.channel, Group: k.group}
			sum[k] = s
			keys = append(keys, k)
		}
		s.N += r.N
		s.Right += r.Right
		s.Handoff += r.Handoff
		s.Wrong += r.Wrong
		s.CitationMisses += r.CitationMisses
	}
	var b strings.Builder
	b.WriteString("| documents | channel | questions | n | answered right | handed off | answered wrong | citation misses |\n|---|---|---|--:|--:|--:|--:|--:|\n")
	for _, k := range keys {
		s := sum[k]
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %d | %d |\n", k.kind, k.channel, k.group, s.N, pct(s.Right, s.N), pct(s.Handoff, s.N), s.Wrong, s.CitationMisses)
	}
	return b.String()
}

func modelFromEnv() Model {
	base, name := os.Getenv("EVAL_LLM_BASE_URL"), os.Getenv("EVAL_LLM_MODEL")
	if base == "" || name == "" {
		return nil
	}
	m := Model{"provider": "openai_compatible", "baseUrl": base, "model": name}
	if k := os.Getenv("EVAL_LLM_API_KEY"); k != "" {
		m["apiKey"] = k
	}
	return m
}

func modelName(m Model) string {
	if m == nil {
		return "offline defaults, no setting touched"
	}
	return fmt.Sprintf("chat model %v at %v", m["model"], m["baseUrl"])
}

// startService builds cmd/assistant and runs it on a fresh database with
// nothing but the settings a deployment must give (database, address,
// data folder, a platform key), and returns a client of it.
func startService(t *testing.T) Client {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "assistant")
	build := exec.Command(goTool(), "build", "-o", bin, "./cmd/assistant")
	build.Dir = ".."
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the service: %s", out)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	key := access.NewSecret()
	logs, err := os.Create(filepath.Join(t.TempDir(), "service.log"))
	require.NoError(t, err)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.NewDatabase(t), "ASSISTANT_ADDR="+addr,
		"ASSISTANT_DATA_DIR="+t.TempDir(), "ASSISTANT_DEFAULT_API_KEY="+key, "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("service log:\n%s", b)
		}
	})
	hc := &http.Client{Timeout: 30 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := hc.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		require.True(t, time.Now().Before(deadline), "the service did not become ready: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
	return Client{Base: "http://" + addr + "/api/v1", Key: key, HTTP: hc}
}

// goTool is the go command that runs this test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
