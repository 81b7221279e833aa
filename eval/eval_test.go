package eval

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/providers/embed/use"
	"github.com/cs-assistant/assistant/store/pg"
)

// update rewrites baseline.json from this run (after a real improvement).
var update = flag.Bool("eval.update", false, "write this run's figures to baseline.json")

// full runs the real-document set whole; without it (make test) a
// deterministic sample of sampleSize of its questions is run.
var (
	full       = flag.Bool("eval.full", false, "run the real-document set whole (also EVAL_FULL=1); make eval sets it")
	sampleSize = flag.Int("eval.sample", 60, "questions of the real-document set run without -eval.full (also EVAL_SAMPLE)")
	onlySets   = flag.String("eval.sets", "", "comma-separated sets to run, of main, held-out, real (also EVAL_SETS); all when empty")
	encoder    = flag.String("eval.encoder", "", "the service's ASSISTANT_SENTENCE_ENCODER, on or off (also EVAL_ENCODER); empty leaves the default; a setting is reported, not guarded")
)

// encoderSetting is the sentence encoder's setting this run gives the
// service: -eval.encoder, else EVAL_ENCODER; "" leaves the service's
// default.
func encoderSetting() string {
	if *encoder != "" {
		return *encoder
	}
	return os.Getenv("EVAL_ENCODER")
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// TestEval runs every dataset through a real service on its offline
// defaults, prints the table, and fails when a guarded figure drops below
// baseline.json. EVAL_STRATEGY (a JSON object of strategy fields) explores
// other thresholds; its figures are reported, not guarded. With
// EVAL_LLM_BASE_URL and EVAL_LLM_MODEL (and
// EVAL_LLM_API_KEY) set, every tenant's chat model is that
// OpenAI-compatible endpoint, and the figures are reported, not guarded.
//
// The third set, "real", is the real documents of realdocs/*.json (files
// of pinned Debian documentation packages, fetched at test time into
// $EVAL_DOCS_DIR, see DocsDir) and the layout FAQs of
// datasets/layout_*.json; it prints tables by layout, answer kind and
// language, a reliability table by confidence band and a check list of
// quote defects, and is guarded (run whole only) where baseline.json has
// a row for it.
func TestEval(t *testing.T) {
	c := startService(t)
	model := modelFromEnv()
	var st Strategy
	if v := os.Getenv("EVAL_STRATEGY"); v != "" {
		require.NoError(t, json.Unmarshal([]byte(v), &st), "EVAL_STRATEGY")
	}
	for _, set := range []struct{ name, dir string }{{"main", "datasets"}, {"held-out", "datasets/heldout"}} {
		if !runsSet(set.name) {
			continue
		}
		ds, err := Load(set.dir, "layout_")
		require.NoError(t, err)
		require.NotEmpty(t, ds)
		outs, _ := runAll(t, c, set.name, ds, model, st, false)
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
		if model == nil && st == nil && encoderSetting() == "" {
			guard(t, set.name, rows)
		}
	}
	if runsSet("real") {
		evalReal(t, c, "real", "realdocs", "datasets", model, st)
	}
	// The held-out set's real documents and layout FAQs are reported like
	// the real set's, as a set of their own.
	if runsSet("held-out") {
		evalReal(t, c, "held-out-real", "realdocs/heldout", "datasets/heldout", model, st)
	}
}

// runsSet: -eval.sets (or EVAL_SETS) is empty or names the set.
func runsSet(name string) bool {
	v := *onlySets
	if v == "" {
		v = os.Getenv("EVAL_SETS")
	}
	return v == "" || slices.Contains(strings.Split(v, ","), name)
}

func fullRun() bool { return *full || os.Getenv("EVAL_FULL") == "1" }

// evalReal runs a real-document set: the Debian documents of docsDir
// (fetched, or skipped outside CI on a machine without apt-get) and the
// layout FAQs (layout_*.json) of layoutDir.
func evalReal(t *testing.T, c Client, set, docsDir, layoutDir string, model Model, st Strategy) {
	real, err := Load(docsDir, "packages")
	require.NoError(t, err)
	pins, err := LoadPins("realdocs/packages.json")
	require.NoError(t, err)
	f := &Fetcher{Dir: DocsDir(".."), Pins: pins, Log: t.Logf}
	fetched := true
	if err := f.Fill(t.Context(), real); err != nil {
		if errors.Is(err, ErrNoAPT) && os.Getenv("CI") == "" {
			fmt.Printf("\n%s set: SKIPPING the real documents (%v); the layout FAQs still run\n", set, err)
			real, fetched = nil, false
		} else {
			require.NoError(t, err, "fetching the real documents into %s (CI must fetch them)", f.Dir)
		}
	}
	layouts, err := LoadGlob(filepath.Join(layoutDir, "layout_*.json"))
	require.NoError(t, err)
	ds := append(real, layouts...)
	if len(ds) == 0 {
		fmt.Printf("\n%s set: no datasets\n", set)
		return
	}
	size := "whole"
	if !fullRun() {
		n := *sampleSize
		if v := os.Getenv("EVAL_SAMPLE"); v != "" {
			n, err = strconv.Atoi(v)
			require.NoError(t, err, "EVAL_SAMPLE")
		}
		ds = Sample(ds, n)
		size = fmt.Sprintf("a sample of %d questions (make eval or -eval.full runs it whole)", n)
	}
	outs, refused := runAll(t, c, set, ds, model, st, true)
	var detail strings.Builder
	for _, o := range outs {
		detail.WriteString(o.Describe() + "\n")
	}
	t.Logf("%s set, every question:\n%s", set, detail.String())

	var b strings.Builder
	fmt.Fprintf(&b, "\n## make eval: %s set, %s (%s)\n\n", set, size, modelName(model))
	fmt.Fprintf(&b, "documents: %d (%d real, fetched into %s); questions: %s\n", len(ds), countSourced(ds), f.Dir, Questions(ds))
	if !fetched {
		b.WriteString("the real documents were NOT fetched (no apt-get): layout FAQs only\n")
	}
	if len(refused) > 0 {
		b.WriteString("\nnot uploadable (refused or not indexed by today's product; their questions are in no row):\n")
		for _, r := range refused {
			fmt.Fprintf(&b, "- %s\n", r)
		}
	}
	layout := func(o Outcome) string { return o.Dataset.LayoutName() + " (" + o.Dataset.Language + ")" }
	answerKind := func(o Outcome) string {
		if o.Question.AnswerKind == "" {
			return "(unlabelled)"
		}
		return o.Question.AnswerKind
	}
	language := func(o Outcome) string { return o.Dataset.Language }
	questionKind := func(o Outcome) string { return o.Question.Kind }
	fmt.Fprintf(&b, "\n### by layout\n\n%s\n### by answer kind\n\n%s\n### by language\n\n%s\n### by question kind\n\n%s\n",
		RealTable("layout (lang)", RealRows(outs, layout)), RealTable("answer kind", RealRows(outs, answerKind)),
		RealTable("language", RealRows(outs, language)), RealTable("question kind", RealRows(outs, questionKind)))
	fmt.Fprintf(&b, "### reliability by confidence band (answers given; a wrong one is any answer not right, to a covered or an uncovered question)\n\n%s\n%s\n",
		Reliability(outs, ChannelDialogue), Reliability(outs, ChannelRAGLab))
	fmt.Fprintf(&b, "### quote defects seen ([x] none, [ ] some)\n\n%s\n", DefectList(outs, sourceText))
	rows := Tallies(outs)
	fmt.Fprintf(&b, "%s\n", Overall(rows))
	fmt.Print(b.String())
	if model == nil && st == nil && encoderSetting() == "" && fullRun() && fetched {
		guardReal(t, set, rows)
	}
}

func countSourced(ds []Dataset) int {
	n := 0
	for _, d := range ds {
		if d.Source != nil {
			n++
		}
	}
	return n
}

// sourceText is a document's text where it is text, for the quote checks.
func sourceText(d Dataset) string {
	switch d.Kind {
	case "text", "md", "html":
		if d.Source != nil {
			return string(d.data)
		}
		return d.Text
	}
	return ""
}

// guardReal guards the real set's rows that baseline.json has (make
// eval-update writes them): the rate may not drop, citation misses and
// wrong answers may not grow. A row without a baseline is only reported.
func guardReal(t *testing.T, set string, rows []Tally) {
	base := map[string]map[string]Floor{}
	if b, err := os.ReadFile("baseline.json"); err == nil {
		require.NoError(t, json.Unmarshal(b, &base))
	}
	if *update {
		cur := map[string]Floor{}
		for _, r := range rows {
			w := r.Wrong
			cur[r.Key()] = Floor{Rate: r.Rate(), CitationMisses: r.CitationMisses, Wrong: &w}
		}
		base[set] = cur
		b, err := json.MarshalIndent(base, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile("baseline.json", append(b, '\n'), 0o644))
		return
	}
	floors := base[set]
	if len(floors) == 0 {
		fmt.Printf("%s set: no baseline yet (make eval-update writes it): reported, not guarded\n", set)
		return
	}
	var fresh []string
	for _, r := range rows {
		f, ok := floors[r.Key()]
		if !ok {
			fresh = append(fresh, r.Key())
			continue
		}
		assert.GreaterOrEqual(t, r.Rate()+1e-9, f.Rate, "%s: the figure dropped below the baseline", r.Key())
		assert.LessOrEqual(t, r.CitationMisses, f.CitationMisses, "%s: more answers cite no chunk holding the answer", r.Key())
		if f.Wrong != nil {
			assert.LessOrEqual(t, r.Wrong, *f.Wrong, "%s: more wrong answers than the baseline", r.Key())
		}
	}
	if len(fresh) > 0 {
		fmt.Printf("%s set: %d rows without a baseline (not guarded; make eval-update adds them): %s\n", set, len(fresh), strings.Join(fresh, ", "))
	}
}

// runAll runs each dataset in a tenant of its own, in parallel. With
// tolerate, a document the service does not take is returned among the
// refused (with the reason) instead of failing the test.
func runAll(t *testing.T, c Client, set string, ds []Dataset, model Model, st Strategy, tolerate bool) ([]Outcome, []string) {
	results := make([][]Outcome, len(ds))
	refusedBy := make([]string, len(ds))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 6) // a few datasets at a time: 2 cores are shared
	for i, d := range ds {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			dc := c
			dc.Tenant = strings.ReplaceAll("eval-"+strings.ReplaceAll(set, "-", "")+"-"+d.Name, "_", "-")
			outs, err := RunDataset(t.Context(), dc, d, model, st)
			var up *UploadError
			if tolerate && errors.As(err, &up) {
				refusedBy[i] = fmt.Sprintf("%s (%s, %s, %d questions): %.200s", d.Name, d.LayoutName(), d.FileName, len(d.Questions), up.Err)
				return
			}
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
	var refused []string
	for _, r := range refusedBy {
		if r != "" {
			refused = append(refused, r)
		}
	}
	return all, refused
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
	// Wrong is the most answers given wrong (real set only).
	Wrong *int `json:"wrong,omitempty"`
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
	if m == nil && encoderSetting() != "" {
		return "offline defaults but ASSISTANT_SENTENCE_ENCODER=" + encoderSetting()
	}
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
	data := t.TempDir()
	linkEncoder(t, data)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pgtest.NewDatabase(t), "ASSISTANT_ADDR="+addr,
		"ASSISTANT_DATA_DIR="+data, "ASSISTANT_DEFAULT_API_KEY="+key, "LOG_LEVEL=warn",
	)
	if v := encoderSetting(); v != "" {
		cmd.Env = append(cmd.Env, "ASSISTANT_SENTENCE_ENCODER="+v)
	}
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

// linkEncoder puts the sentence encoder's weights in the service's data
// folder data when the run turns the encoder on, as make run has them in its own: linked from the repo's
// data folder (ASSISTANT_DATA_DIR, else .data), fetched there first when
// absent. Without them the service answers by words alone, and the run
// says so.
func linkEncoder(t *testing.T, data string) {
	if encoderSetting() != "on" {
		return
	}
	repoData := filepath.Join("..", ".data")
	if d := os.Getenv("ASSISTANT_DATA_DIR"); d != "" {
		repoData = d
		if !filepath.IsAbs(d) {
			repoData = filepath.Join("..", d)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src, err := use.Ensure(ctx, repoData)
	if err == nil {
		src, err = filepath.Abs(src)
	}
	if err != nil {
		fmt.Printf("sentence encoder weights unavailable (%v): the service answers by words alone\n", err)
		return
	}
	dst := use.CacheDir(data)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.Symlink(src, dst))
}

// goTool is the go command that runs this test.
func goTool() string {
	//lint:ignore SA1019 a test binary runs on the machine that built it, so the build's root is this machine's Go
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
