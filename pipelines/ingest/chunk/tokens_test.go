package chunk

import (
	"errors"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestTokenizer returns a Tokenizer or fails the test.
func newTestTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := NewTokenizer()
	require.NoError(t, err)
	return tok
}

// offlineChildEnv marks the process TestNewTokenizerNeverTouchesTheNetwork
// starts to load the tokenizer with the network cut off.
const offlineChildEnv = "CHUNK_TEST_OFFLINE_CHILD"

// tripwire is an http.RoundTripper that records and refuses every request.
type tripwire struct{ t *testing.T }

func (w tripwire) RoundTrip(r *http.Request) (*http.Response, error) {
	w.t.Errorf("tokenizer made an HTTP request: %s %s", r.Method, r.URL)
	return nil, errors.New("network disabled in this test")
}

func TestNewTokenizerNeverTouchesTheNetwork(t *testing.T) {
	if os.Getenv(offlineChildEnv) == "1" {
		// In the child: any HTTP request through net/http trips the test,
		// and one that bypassed it would meet a dead proxy.
		http.DefaultTransport = tripwire{t}
		tok, err := NewTokenizer()
		require.NoError(t, err)
		assert.Equal(t, 10, tok.Count("The quick brown fox jumps over the lazy dog."))
		return
	}
	// A fresh process, so the proxy variables are read afresh (net/http
	// caches them once per process) and nothing loaded earlier helps.
	cache := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNewTokenizerNeverTouchesTheNetwork$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(),
		offlineChildEnv+"=1",
		"HTTPS_PROXY=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
		"HTTP_PROXY=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9",
		"NO_PROXY=", "no_proxy=",
		// Where tiktoken-go would cache a downloaded vocabulary.
		"TIKTOKEN_CACHE_DIR="+cache, "DATA_GYM_CACHE_DIR="+cache, "TMPDIR="+t.TempDir(),
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child test failed:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestNewTokenizerNeverTouchesTheNetwork", "child did not run the test:\n%s", out)
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	assert.Empty(t, entries, "the tokenizer wrote to the tiktoken cache")
}

func TestCountMatchesKnownCL100KCounts(t *testing.T) {
	tok := newTestTokenizer(t)
	tests := []struct {
		name string
		text string
		want int
	}{
		// Counts as given by OpenAI's tiktoken for cl100k_base.
		{"pangram", "The quick brown fox jumps over the lazy dog.", 10},
		{"cookbook example", "tiktoken is great!", 6},
		{"support sentence", "Please restart the router and try again in five minutes.", 11},
		{"chinese", "你好，世界！这是一个测试。", 12},
		{"empty", "", 0},
		{"special token text is ordinary text", "<|endoftext|>", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tok.Count(tt.text))
		})
	}
}

func TestEncodeGivesKnownCL100KTokens(t *testing.T) {
	tok := newTestTokenizer(t)
	assert.Equal(t, []int{791, 4062, 14198, 39935, 35308, 927, 279, 16053, 5679, 13},
		tok.encode("The quick brown fox jumps over the lazy dog."))
	assert.Equal(t, []int{83, 1609, 5963, 374, 2294, 0}, tok.encode("tiktoken is great!"))
}

// fragments mixes every character class cl100k's pre-tokenising pattern
// treats differently: letters of several scripts and cases, contractions,
// numbers of several kinds, every kind of whitespace and line break,
// punctuation, symbols, marks, emoji and special-token text.
var fragments = []string{
	"a", "B", "the", "The", "don't", "I'M", "we'RE", "'s", "'S", "'ll", "'LL", "'ve", "'d", "'t", "'m", "'x", "'", "''",
	"0", "12", "3456", "Ⅻ", "²", "٣", "中文", "字", "ひら", "한국", "Привет", "αβ", "e\u0301", "\u0301", "😀", "👍🏽", "\u200d",
	" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u0085", "\v", "\f", " \n", "\t\n ",
	".", ",", ";", "!?", "(", ")", "[", "]", "{", "}", "<", ">", "-", "_", "=", "+", "*", "/", "\\", "|", "@", "#", "$",
	"%", "^", "&", "~", "`", "\"", "...", "——", "“", "”", "’", "，", "。", "<|endoftext|>", "https://x.io/a?b=1",
	"ſ", "\u212a", "İ", "x\u00ad",
}

func TestEncodeMatchesTiktokenGo(t *testing.T) {
	// tiktoken-go is the reference. Its GetEncoding reads the vocabulary
	// through a package-level loader; point it at the embedded files so this
	// test cannot download either. Only this test uses tiktoken-go's
	// globals.
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	ref, err := tiktoken.GetEncoding(tiktoken.MODEL_CL100K_BASE)
	require.NoError(t, err)
	tok := newTestTokenizer(t)

	rng := rand.New(rand.NewSource(1))
	cases := 5000
	if testing.Short() {
		cases = 500
	}
	for range cases {
		var b strings.Builder
		for range 1 + rng.Intn(16) {
			b.WriteString(fragments[rng.Intn(len(fragments))])
		}
		s := b.String()
		if longestPiece(s) > maxPieceBytes {
			continue // deliberately cut; see maxPieceBytes
		}
		require.Equal(t, ref.EncodeOrdinary(s), tok.encode(s), "text %q", s)
	}
	prose := strings.Repeat(supportProse+"\n\n"+chineseProse+"\n", 20)
	assert.Equal(t, ref.EncodeOrdinary(prose), tok.encode(prose))
}

// longestPiece is the byte length of the longest pre-tokenised piece of s.
func longestPiece(s string) int {
	longest := 0
	for p := 0; p < len(s); {
		q := nextPiece(s, p)
		longest = max(longest, q-p)
		p = q
	}
	return longest
}

const supportProse = `If the device does not power on, hold the reset button for 10 seconds.
Then reconnect the charger (5V/2A) and wait until the LED blinks green — it can take up to 2 minutes.
Don't use third-party cables; they're a common cause of "charging paused" errors. See https://example.com/help?id=42.`

const chineseProse = `如果设备无法开机，请按住重置按钮十秒钟。然后重新连接充电器，等待指示灯闪烁绿色，这可能需要两分钟。请勿使用第三方数据线；它们是“充电暂停”错误的常见原因。`

func TestCountStaysFastOnPathologicalRuns(t *testing.T) {
	tok := newTestTokenizer(t)
	tests := []struct {
		name string
		text string
	}{
		{"one long word", strings.Repeat("a", 1<<18)},
		{"unpunctuated chinese", strings.Repeat("中文字符", 1<<15)},
		{"long whitespace", strings.Repeat(" ", 1<<18) + "x"},
		{"long rule", strings.Repeat("=", 1<<18)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			n := tok.Count(tt.text)
			// Quadratic merging would take minutes here; linear takes
			// milliseconds (a generous bound for -race and slow machines).
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Positive(t, n)
			assert.LessOrEqual(t, n, len(tt.text))
		})
	}
}

func TestSplitRoundTripsText(t *testing.T) {
	tok := newTestTokenizer(t)
	tests := []struct {
		name string
		text string
		max  int
	}{
		{"chinese in small pieces", strings.Repeat(chineseProse, 5), 5},
		{"chinese in single tokens", chineseProse, 1},
		{"chinese in large pieces", strings.Repeat(chineseProse, 20), 100},
		{"english", strings.Repeat(supportProse, 10), 37},
		{"emoji and marks", strings.Repeat("👍🏽 e\u0301 😀\u200d👩 ", 50), 3},
		{"text shorter than max", "hello world", 100},
		{"pathological run", strings.Repeat("中", 3000), 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces := tok.Split(tt.text, tt.max)
			require.NotEmpty(t, pieces)
			assert.Equal(t, tt.text, strings.Join(pieces, ""))
			for _, p := range pieces {
				assert.NotEmpty(t, p)
				assert.True(t, utf8.ValidString(p), "piece %q is not valid UTF-8", p)
				if tt.max >= 4 {
					assert.LessOrEqual(t, tok.Count(p), tt.max, "piece %q", p)
				}
			}
		})
	}
}

func TestSplitOfEmptyTextGivesNoPieces(t *testing.T) {
	tok := newTestTokenizer(t)
	assert.Empty(t, tok.Split("", 10))
}

func TestSplitReplacesInvalidUTF8(t *testing.T) {
	tok := newTestTokenizer(t)
	pieces := tok.Split("ab\xffcd\xfe中文", 2)
	assert.Equal(t, "ab\uFFFDcd\uFFFD中文", strings.Join(pieces, ""))
}

func TestSplitKeepsPiecesWithinMaxForRandomText(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(2))
	for range 200 {
		var b strings.Builder
		for range rng.Intn(200) {
			b.WriteString(fragments[rng.Intn(len(fragments))])
		}
		s, limit := b.String(), 4+rng.Intn(60)
		pieces := tok.Split(s, limit)
		require.Equal(t, s, strings.Join(pieces, ""))
		for _, p := range pieces {
			require.LessOrEqual(t, tok.Count(p), limit, "piece %q of %q", p, s)
		}
	}
}

func TestTokenizerIsSafeForConcurrentUse(t *testing.T) {
	tok := newTestTokenizer(t)
	texts := []string{supportProse, chineseProse, strings.Repeat(supportProse+chineseProse, 5)}
	wantCounts := make([]int, len(texts))
	wantPieces := make([][]string, len(texts))
	for i, s := range texts {
		wantCounts[i] = tok.Count(s)
		wantPieces[i] = tok.Split(s, 17)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(texts)
				assert.Equal(t, wantCounts[i], tok.Count(texts[i]))
				assert.Equal(t, wantPieces[i], tok.Split(texts[i], 17))
			}
		}()
	}
	wg.Wait()
}
