package vectorlog

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// settingsStore holds tenants' settings in memory; a tenant it does not
// hold is CodeNotFound, as in the real store.
type settingsStore struct {
	mu sync.Mutex
	m  map[domain.TenantID]domain.TenantSettings
}

func newSettings() *settingsStore {
	return &settingsStore{m: map[domain.TenantID]domain.TenantSettings{}}
}

// set turns tenant's log on or off at path.
func (s *settingsStore) set(tenant domain.TenantID, enabled bool, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[tenant] = domain.TenantSettings{TenantID: tenant, KBVectorLogEnabled: enabled, KBVectorLogPath: path}
}

func (s *settingsStore) GetSettings(_ context.Context, tenant domain.TenantID) (domain.TenantSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[tenant]
	if !ok {
		return domain.TenantSettings{}, domain.Errorf(domain.CodeNotFound, "Tenant %s not found.", tenant)
	}
	return st, nil
}

func (s *settingsStore) UpdateSettings(context.Context, domain.TenantSettings) (domain.TenantSettings, error) {
	panic("not used")
}

var fixedNow = time.Date(2025, 3, 14, 15, 9, 26, 535000000, time.FixedZone("CST", 8*3600))

// newLog returns a log under a fresh temporary root with a fixed clock,
// closed at the end of the test.
func newLog(t *testing.T, settings domain.SettingsStore) (*Log, string) {
	t.Helper()
	root := t.TempDir()
	l := New(settings, root)
	l.now = func() time.Time { return fixedNow }
	t.Cleanup(func() { assert.NoError(t, l.Close()) })
	return l, root
}

func vrec(chunk string, vec ...float32) domain.VectorRecord {
	return domain.VectorRecord{ChunkID: chunk, KBID: "kb1", DocumentID: "doc1", Model: "embed-v1", Vector: vec}
}

// readLines decodes every line of the file at path.
func readLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %q", sc.Text())
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

func chunks(lines []line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Chunk
	}
	return out
}

// files lists every regular file under root, relative to it.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	}))
	sort.Strings(out)
	return out
}

func TestRecordWritesOneJSONLinePerRecord(t *testing.T) {
	settings := newSettings()
	settings.set("acme", true, domain.DefaultKBVectorLogPath)
	l, root := newLog(t, settings)

	recs := []domain.VectorRecord{
		{ChunkID: "c1", KBID: "kb-1", DocumentID: "doc-1", Model: "embed-v1", Vector: []float32{3, 4}},
		{ChunkID: "c2", KBID: "kb-1", DocumentID: "doc-1", Model: "embed-v1", Vector: []float32{1, 1, 1, 1},
			Text: "never logged", Metadata: map[string]any{"lang": "en"}},
		{ChunkID: "c3", KBID: "kb-2", DocumentID: "doc-2", Model: "embed-v2", Vector: nil},
	}
	require.NoError(t, l.Record(context.Background(), "acme", recs))

	path := filepath.Join(root, "tenants", "acme", "kb-vector.log")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(raw)
	assert.True(t, strings.HasSuffix(text, "\n"), "every line ends with a newline")
	rows := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	require.Len(t, rows, 3)

	// The exact keys and values of the first line; the time is the clock's,
	// in UTC.
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(rows[0]), &first))
	assert.Equal(t, map[string]any{
		"time": "2025-03-14T07:09:26.535Z", "tenant": "acme", "kb": "kb-1", "document": "doc-1",
		"chunk": "c1", "model": "embed-v1", "dims": float64(2), "norm": float64(5),
	}, first)
	assert.NotContains(t, text, "never logged", "the chunk's text is not logged")
	assert.NotContains(t, text, "lang", "the chunk's metadata is not logged")

	lines := readLines(t, path)
	assert.Equal(t, []string{"c1", "c2", "c3"}, chunks(lines), "one line per record, in order")
	assert.Equal(t, line{Time: fixedNow.UTC(), Tenant: "acme", KB: "kb-1", Document: "doc-1",
		Chunk: "c2", Model: "embed-v1", Dims: 4, Norm: 2}, lines[1])
	assert.Equal(t, line{Time: fixedNow.UTC(), Tenant: "acme", KB: "kb-2", Document: "doc-2",
		Chunk: "c3", Model: "embed-v2", Dims: 0, Norm: 0}, lines[2], "an empty vector has no dimensions and norm 0")
	assert.Equal(t, []string{"tenants/acme/kb-vector.log"}, files(t, root))
}

func TestNorm(t *testing.T) {
	tests := []struct {
		name string
		v    []float32
		want float64
	}{
		{"nil", nil, 0},
		{"zero", []float32{0, 0, 0}, 0},
		{"3-4-5", []float32{3, 4}, 5},
		{"negative elements", []float32{-3, 0, -4}, 5},
		{"unit", []float32{0.6, 0.8}, 1},
		// Summed in float64: squaring the largest float32 does not overflow.
		{"largest float32", []float32{math.MaxFloat32, math.MaxFloat32}, math.MaxFloat32 * math.Sqrt2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, norm(tt.v), 1e-6*max(1, tt.want))
		})
	}
}

func TestRecordAppends(t *testing.T) {
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()
	path := filepath.Join(root, "tenants", "acme", "kb.log")

	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("c1", 1)}))
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("c2", 1), vrec("c3", 1)}))
	assert.Equal(t, []string{"c1", "c2", "c3"}, chunks(readLines(t, path)))

	// A new Log (a restart) appends to what the last one wrote.
	require.NoError(t, l.Close())
	again := New(settings, root)
	require.NoError(t, again.Record(ctx, "acme", []domain.VectorRecord{vrec("c4", 1)}))
	require.NoError(t, again.Close())
	assert.Equal(t, []string{"c1", "c2", "c3", "c4"}, chunks(readLines(t, path)))

	// So does the same Log after Close.
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("c5", 1)}))
	assert.Equal(t, []string{"c1", "c2", "c3", "c4", "c5"}, chunks(readLines(t, path)))
}

func TestRecordWritesNothingWhenOff(t *testing.T) {
	tests := []struct {
		name     string
		settings func(*settingsStore)
		recs     []domain.VectorRecord
	}{
		{
			name:     "log disabled",
			settings: func(s *settingsStore) { s.set("acme", false, "kb.log") },
			recs:     []domain.VectorRecord{vrec("c1", 1)},
		},
		{
			name:     "log disabled with a path that would be refused",
			settings: func(s *settingsStore) { s.set("acme", false, "") },
			recs:     []domain.VectorRecord{vrec("c1", 1)},
		},
		{
			name:     "log enabled but no records",
			settings: func(s *settingsStore) { s.set("acme", true, "kb.log") },
			recs:     nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings := newSettings()
			tt.settings(settings)
			l, root := newLog(t, settings)
			require.NoError(t, l.Record(context.Background(), "acme", tt.recs))
			assert.Empty(t, files(t, root))
			assert.NoDirExists(t, filepath.Join(root, "tenants"), "not even the tenant's folder is made")
		})
	}
}

func TestRecordReportsSettingsErrors(t *testing.T) {
	l, root := newLog(t, newSettings())
	err := l.Record(context.Background(), "ghost", []domain.VectorRecord{vrec("c1", 1)})
	require.Error(t, err)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Empty(t, files(t, root))
}

// The switch and the path are read on every call: a change applies to the
// next record without a new Log.
func TestSettingsApplyToTheNextRecord(t *testing.T) {
	settings := newSettings()
	l, root := newLog(t, settings)
	ctx := context.Background()
	dir := filepath.Join(root, "tenants", "acme")

	settings.set("acme", false, "first.log")
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("off-1", 1)}))
	settings.set("acme", true, "first.log")
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("on-1", 1)}))
	settings.set("acme", false, "first.log")
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("off-2", 1)}))
	settings.set("acme", true, "logs/second.log")
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("on-2", 1)}))
	settings.set("acme", true, "first.log")
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("on-3", 1)}))

	assert.Equal(t, []string{"on-1", "on-3"}, chunks(readLines(t, filepath.Join(dir, "first.log"))))
	assert.Equal(t, []string{"on-2"}, chunks(readLines(t, filepath.Join(dir, "logs", "second.log"))))
	assert.Equal(t, []string{"tenants/acme/first.log", "tenants/acme/logs/second.log"}, files(t, root))
}

func TestTenantsWriteToTheirOwnFolders(t *testing.T) {
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	settings.set("globex", true, "kb.log") // the same relative path
	settings.set("initech", false, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()

	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("a1", 1)}))
	require.NoError(t, l.Record(ctx, "globex", []domain.VectorRecord{vrec("g1", 1)}))
	require.NoError(t, l.Record(ctx, "initech", []domain.VectorRecord{vrec("i1", 1)}))
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("a2", 1)}))

	acme := readLines(t, filepath.Join(root, "tenants", "acme", "kb.log"))
	globex := readLines(t, filepath.Join(root, "tenants", "globex", "kb.log"))
	assert.Equal(t, []string{"a1", "a2"}, chunks(acme))
	assert.Equal(t, []string{"g1"}, chunks(globex))
	assert.Equal(t, "acme", acme[0].Tenant)
	assert.Equal(t, "globex", globex[0].Tenant)
	assert.Equal(t, []string{"tenants/acme/kb.log", "tenants/globex/kb.log"}, files(t, root))
}

// Whatever the settings say, the file is inside the tenant's folder:
// absolute paths and ".." are taken relative to it.
func TestPathStaysInsideTheTenantFolder(t *testing.T) {
	tests := []struct {
		path string
		want string // relative to the tenant's folder
	}{
		{"kb-vector.log", "kb-vector.log"},
		{"./kb.log", "kb.log"},
		{"logs/2025/kb.log", "logs/2025/kb.log"},
		{"logs//kb.log", "logs/kb.log"},
		{"logs/kb.log/", "logs/kb.log"},
		{"/etc/passwd", "etc/passwd"},
		{"../kb.log", "kb.log"},
		{"../../../../escape.log", "escape.log"},
		{"../globex/kb.log", "globex/kb.log"},
		{"logs/../../kb.log", "kb.log"},
		{"/../../root.log", "root.log"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			settings := newSettings()
			settings.set("acme", true, tt.path)
			l, root := newLog(t, settings)
			require.NoError(t, l.Record(context.Background(), "acme", []domain.VectorRecord{vrec("c1", 1)}))
			assert.Equal(t, []string{"tenants/acme/" + tt.want}, files(t, root))
			assert.Equal(t, []string{"c1"}, chunks(readLines(t, filepath.Join(root, "tenants", "acme", tt.want))))
		})
	}
}

// A path naming the tenant's folder itself is refused, and nothing is
// written.
func TestPathOfTheFolderItselfIsRefused(t *testing.T) {
	for _, path := range []string{"", ".", "/", "..", "../..", "logs/..", "./"} {
		t.Run(fmt.Sprintf("%q", path), func(t *testing.T) {
			settings := newSettings()
			settings.set("acme", true, path)
			l, root := newLog(t, settings)
			err := l.Record(context.Background(), "acme", []domain.VectorRecord{vrec("c1", 1)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "leaves the tenant folder")
			assert.Empty(t, files(t, root))
		})
	}
}

// A batch is written whole or not at all: one that cannot be encoded
// leaves no partial lines.
func TestUnencodableBatchWritesNothing(t *testing.T) {
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()
	require.NoError(t, l.Record(ctx, "acme", []domain.VectorRecord{vrec("before", 1)}))

	err := l.Record(ctx, "acme", []domain.VectorRecord{
		vrec("ok", 1),
		vrec("nan", float32(math.NaN())), // its norm is NaN, which JSON cannot hold
	})
	require.Error(t, err)
	assert.Equal(t, []string{"before"}, chunks(readLines(t, filepath.Join(root, "tenants", "acme", "kb.log"))))
}

// bigBatch returns n records whose lines take about size bytes each.
func bigBatch(prefix string, n, size int) []domain.VectorRecord {
	pad := strings.Repeat("x", size)
	recs := make([]domain.VectorRecord, n)
	for i := range recs {
		recs[i] = vrec(fmt.Sprintf("%s-%03d-%s", prefix, i, pad), 1)
	}
	return recs
}

// backups returns the rotated files next to the log kb.log in dir.
func backups(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "kb-*.log"))
	require.NoError(t, err)
	return m
}

func TestRotatesBySize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes more than 10 MB")
	}
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()
	dir := filepath.Join(root, "tenants", "acme")
	const lineSize = 64 << 10 // 64 KiB lines, 16 a batch: 1 MiB a call

	// 11 MiB: more than one file holds.
	var want []string
	for i := range 11 {
		batch := bigBatch(fmt.Sprintf("r%02d", i), 16, lineSize)
		require.NoError(t, l.Record(ctx, "acme", batch))
		for _, r := range batch {
			want = append(want, r.ChunkID)
		}
	}

	old := backups(t, dir)
	require.Len(t, old, 1, "one rotated file")
	assert.Regexp(t, `kb-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$`, old[0])
	for _, p := range append(old, filepath.Join(dir, "kb.log")) {
		info, err := os.Stat(p)
		require.NoError(t, err)
		assert.LessOrEqual(t, info.Size(), int64(maxSizeMB<<20), "%s is over the size limit", p)
	}
	// No line is lost or cut: the rotated file then the current one hold
	// every line, whole and in order, and a batch is never split.
	rotated, current := readLines(t, old[0]), readLines(t, filepath.Join(dir, "kb.log"))
	assert.Equal(t, want, append(chunks(rotated), chunks(current)...))
	assert.Zero(t, len(rotated)%16, "a batch was split across files")
}

func TestKeepsAtMostMaxBackups(t *testing.T) {
	if testing.Short() {
		t.Skip("writes more than 70 MB")
	}
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()
	dir := filepath.Join(root, "tenants", "acme")

	// 4 MiB batches: a file takes two, so 16 batches rotate 7 times.
	for i := range 16 {
		require.NoError(t, l.Record(ctx, "acme", bigBatch(fmt.Sprintf("r%02d", i), 64, 64<<10)))
		// Backups are named to the millisecond: keep rotations apart.
		time.Sleep(2 * time.Millisecond)
	}
	// Old files are removed in the background.
	assert.Eventually(t, func() bool { return len(backups(t, dir)) == maxBackups }, 5*time.Second, 10*time.Millisecond,
		"want %d backups, have %d", maxBackups, len(backups(t, dir)))
	// The newest are kept: the current file holds the last two batches,
	// the backups the five pairs before, and the two oldest files are gone.
	batches := func(p string) []string {
		var out []string
		for _, c := range chunks(readLines(t, p)) {
			if b := c[:3]; len(out) == 0 || out[len(out)-1] != b {
				out = append(out, b)
			}
		}
		return out
	}
	assert.Equal(t, []string{"r14", "r15"}, batches(filepath.Join(dir, "kb.log")))
	var kept []string
	for _, p := range backups(t, dir) { // oldest first: names sort by time
		kept = append(kept, batches(p)...)
	}
	assert.Equal(t, []string{"r04", "r05", "r06", "r07", "r08", "r09", "r10", "r11", "r12", "r13"}, kept)
}

// Every indexed chunk gets its line, however many chunks a document has.
// Known bug: Record writes a batch in one Write, and lumberjack refuses a
// write larger than MaxSize (10 MiB), so a document of more than about
// 35,000 chunks (lines of ~300 bytes) logs nothing at all. Unskip once
// Record writes big batches in pieces.
func TestHugeBatchIsLogged(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 16 MB")
	}
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	l, root := newLog(t, settings)
	recs := bigBatch("chunk", 50_000, 250) // about 16 MB of lines
	require.NoError(t, l.Record(context.Background(), "acme", recs))
	n := 0
	for _, p := range append(backups(t, filepath.Join(root, "tenants", "acme")), filepath.Join(root, "tenants", "acme", "kb.log")) {
		n += len(readLines(t, p))
	}
	assert.Equal(t, len(recs), n)
}

// Each Record's lines are contiguous and whole, whatever runs at the same
// time (run with -race).
func TestConcurrentRecordsKeepLinesWhole(t *testing.T) {
	settings := newSettings()
	settings.set("acme", true, "kb.log")
	settings.set("globex", true, "kb.log")
	l, root := newLog(t, settings)
	ctx := context.Background()
	const writers, calls, per = 8, 40, 5

	var wg sync.WaitGroup
	errs := make(chan error, writers*calls)
	for w := range writers {
		tenant := domain.TenantID("acme")
		if w%2 == 1 {
			tenant = "globex"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range calls {
				recs := make([]domain.VectorRecord, per)
				for i := range recs {
					recs[i] = vrec(fmt.Sprintf("w%d-c%02d-%d", w, c, i), float32(w), float32(c), float32(i))
				}
				errs <- l.Record(ctx, tenant, recs)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	for _, tenant := range []string{"acme", "globex"} {
		lines := readLines(t, filepath.Join(root, "tenants", tenant, "kb.log"))
		require.Len(t, lines, writers/2*calls*per, tenant)
		seen := map[string]bool{}
		for i := 0; i < len(lines); i += per {
			// A call's lines come together, in order.
			call := strings.TrimSuffix(lines[i].Chunk, "-0")
			for j := range per {
				assert.Equal(t, fmt.Sprintf("%s-%d", call, j), lines[i+j].Chunk, "%s: line %d", tenant, i+j)
				assert.Equal(t, tenant, lines[i+j].Tenant)
			}
			assert.False(t, seen[call], "%s written twice", call)
			seen[call] = true
		}
	}
}

func TestCloseWithoutFilesAndTwice(t *testing.T) {
	l := New(newSettings(), t.TempDir())
	assert.NoError(t, l.Close())
	assert.NoError(t, l.Close())
}
