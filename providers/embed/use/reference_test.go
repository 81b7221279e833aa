package use

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceTolerance is the largest difference per dimension allowed
// between this encoder and the Node implementation.
const referenceTolerance = 1e-4

// referencePackages are the Node implementation the vectors are checked
// against, pinned to the versions the weights were published with.
var referencePackages = []string{
	"@energetic-ai/core@0.2.0",
	"@energetic-ai/embeddings@0.2.0",
	PackageName + "@" + PackageVersion,
}

// referenceSentences cover what reaches the encoder: plain English,
// mixed scripts, empty and blank text, text past MaxTokens, punctuation,
// numbers, NFKC-folded forms and characters beyond the BMP.
func referenceSentences() []string {
	long := strings.Repeat("Our support team answers every question about orders, refunds and deliveries. ", 20)
	return []string{
		"When do I get my money back?",
		"Refunds are paid within 5 working days",
		"Do you sell concert tickets?",
		"hello",
		"",
		"   ",
		"Where is my parcel? 我的包裹在哪里？",
		"Café crème, naïve façade — déjà vu.",
		long,
		"!!! ??? ... ,,, ;;; --- ((( ))) [[[ ]]]",
		"Order #12345 costs $99.95 (incl. 20% VAT) on 2024-03-15 at 10:30.",
		"０１２３ ＡＢＣ ﬁle ½ ™",
		"I love it 😀👍🏽 🇩🇪",
		"tabs\tand\nnew lines\r\nhere",
		"Supercalifragilisticexpialidocious antidisestablishmentarianism",
		"a",
		"The quick brown fox jumps over the lazy dog.",
	}
}

// referenceOutput is what testdata/reference.js prints.
type referenceOutput struct {
	Tokens [][]int     `json:"tokens"`
	Single [][]float64 `json:"single"` // null where Node gives no vector
	Batch  [][]float64 `json:"batch"`
}

// nodeTools finds node and npm: on PATH, else the ones tools/nodeboot
// leaves in tools/npm/.node/bin (make tools or scripts/node-bootstrap.sh).
func nodeTools(t *testing.T) (node, npm string, ok bool) {
	t.Helper()
	if node, err := exec.LookPath("node"); err == nil {
		if npm, err := exec.LookPath("npm"); err == nil {
			return node, npm, true
		}
	}
	bin := filepath.Join(repoRoot(t), "tools", "npm", ".node", "bin")
	node, npm = filepath.Join(bin, "node"), filepath.Join(bin, "npm")
	if _, err := os.Stat(node); err != nil {
		return "", "", false
	}
	if _, err := os.Stat(npm); err != nil {
		return "", "", false
	}
	return node, npm, true
}

// runReference installs the Node implementation into a temporary folder
// and runs it over sentences.
func runReference(t *testing.T, sentences []string) referenceOutput {
	t.Helper()
	node, npm, ok := nodeTools(t)
	if !ok {
		t.Skip("no Node.js: install one, or run scripts/node-bootstrap.sh, to check the encoder against the reference")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"use-reference","private":true}`), 0o644))
	args := append([]string{"install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact"}, referencePackages...)
	install := exec.CommandContext(ctx, npm, args...)
	install.Dir = dir
	install.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("cannot install the Node reference (%v): %s", err, out)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "reference.js"))
	require.NoError(t, err)
	// The script resolves the packages from its own folder.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reference.js"), script, 0o644))
	in, err := json.Marshal(sentences)
	require.NoError(t, err)
	run := exec.CommandContext(ctx, node, "reference.js")
	run.Dir = dir
	run.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	run.Stderr = &stderr
	out, err := run.Output()
	require.NoError(t, err, "reference.js: %s", stderr.String())
	var ref referenceOutput
	require.NoError(t, json.Unmarshal(out, &ref))
	require.Len(t, ref.Tokens, len(sentences))
	require.Len(t, ref.Single, len(sentences))
	return ref
}

// maxAbsDiff is the largest difference between a and b, dimension by
// dimension.
func maxAbsDiff(a []float32, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

// TestMatchesNodeReference: the tokenizer gives the reference's pieces and
// the vectors agree with the reference to referenceTolerance, one text at
// a time and in one batch.
func TestMatchesNodeReference(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs the Node reference")
	}
	enc := encoderForTest(t)
	sentences := referenceSentences()
	ref := runReference(t, sentences)
	got, err := enc.Embed(sentences)
	require.NoError(t, err)

	worst := 0.0
	for i, s := range sentences {
		name := s
		if r := []rune(name); len(r) > 40 {
			name = string(r[:40]) + "…"
		}
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, ref.Tokens[i], nonNil(enc.Tokenizer().Encode(s)), "pieces")
			if ref.Single[i] != nil { // Node gives no vector for a text with no piece alone
				require.Len(t, ref.Single[i], Dim)
				d := maxAbsDiff(got[i], ref.Single[i])
				worst = max(worst, d)
				assert.LessOrEqual(t, d, referenceTolerance, "alone: max abs diff")
			}
			if ref.Batch != nil {
				d := maxAbsDiff(got[i], ref.Batch[i])
				worst = max(worst, d)
				assert.LessOrEqual(t, d, referenceTolerance, "in the batch: max abs diff")
			}
		})
	}
	require.NotNil(t, ref.Batch, "the reference embeds the whole batch")
	require.Len(t, ref.Batch, len(sentences))
	t.Logf("max abs diff against the Node reference over %d texts: %.3g", len(sentences), worst)
}

// nonNil is ids, or an empty slice for nil (JSON's [] decodes to one).
func nonNil(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}
