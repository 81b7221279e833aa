package remote

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// testText is what Test embeds: short, so the call measures the round trip.
const testText = "connection test"

// Embedder embeds texts with a remote model. It implements domain.Embedder
// and is safe for concurrent use.
type Embedder struct {
	cfg     Config // defaults applied
	baseURL string
	// errs words provider errors and redacts the key from them.
	errs      providerhttp.Provider
	auth      string // Authorization header value, "" for none
	model     string
	client    *http.Client
	transport *retryTransport
	batch     func(ctx context.Context, texts []string) ([][]float32, error)
}

var _ domain.Embedder = (*Embedder)(nil)

// New validates c and builds its Embedder. httpClient (nil: a default
// client) supplies the underlying transport, proxy and redirect policy; it
// is copied, not changed, and its transport is wrapped in our retrying one.
func New(c Config, httpClient *http.Client) (*Embedder, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c = c.withDefaults()
	hc := &http.Client{}
	if httpClient != nil {
		cp := *httpClient
		hc = &cp
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	rt := &retryTransport{
		base:    base,
		retries: c.Retries,
		timeout: c.Timeout,
		// A float in JSON takes under 25 bytes; 40 leaves room for
		// whitespace and a verbose provider's extra fields.
		maxBody: int64(c.BatchSize)*int64(c.Dims)*40 + 1<<20,
		backoff: httpretry.Backoff{}, // httpretry's defaults
	}
	hc.Transport = rt
	e := &Embedder{
		cfg:     c,
		baseURL: c.BaseURL,
		// A 408 is a refusal here (the transport does not retry it), and a
		// JSON "error" member without text adds no detail.
		errs: providerhttp.Provider{
			Subject:          "the embedding provider",
			NotFound:         "this model or endpoint",
			Key:              c.APIKey,
			QuietErrorMember: true,
		},
		model:     fmt.Sprintf("%s:%s@%d", c.Kind, c.Model, c.Dims),
		client:    hc,
		transport: rt,
	}
	switch c.Kind {
	case KindOpenAICompatible:
		if c.APIKey != "" {
			e.auth = "Bearer " + c.APIKey
		}
		e.batch = e.embedOpenAI
	case KindOllama:
		e.batch = e.embedOllama
	}
	return e, nil
}

// Model names the vectors' model, kind and size, e.g.
// "openai_compatible:text-embedding-3-small@768": two configurations that
// make incomparable vectors never share a name.
func (e *Embedder) Model() string { return e.model }

// Dims is the length of every vector.
func (e *Embedder) Dims() int { return e.cfg.Dims }

// String names the embedder without its key, for logs.
func (e *Embedder) String() string { return "remote.Embedder(" + e.model + ")" }

// Embed returns one vector per text, in order. Texts go in batches of
// BatchSize, at most Concurrency at a time; the first failing batch
// cancels the others and its error is returned. Errors are
// *domain.Error: CodeUnavailable for provider trouble worth retrying later
// (including a bad answer), CodeValidation for what the configuration
// must fix, and on cancellation one that wraps ctx.Err().
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.cfg.Concurrency)
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(texts))
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return providerhttp.Unavailable("the embedding request was cancelled or ran out of time", err)
			}
			vecs, err := e.batch(gctx, texts[start:end])
			if err != nil {
				return err
			}
			if err := checkVectors(vecs, end-start, e.cfg.Dims, start); err != nil {
				return err
			}
			copy(out[start:end], vecs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, e.scrub(err)
	}
	return out, nil
}

// Test embeds one short text and reports how long the round trip took,
// for the admin "test" endpoint.
func (e *Embedder) Test(ctx context.Context) (latency time.Duration, err error) {
	start := time.Now()
	_, err = e.Embed(ctx, []string{testText})
	return time.Since(start), err
}

// scrub is the last guard against leaking the key: provider messages are
// redacted where they are read, but should the key still show up in an
// error's text (say, a proxy quoting the request), the error is rebuilt
// from redacted text and loses its chain (see providerhttp.Provider.Scrub).
func (e *Embedder) scrub(err error) error { return e.errs.Scrub(err) }
