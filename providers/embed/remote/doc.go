// Package remote embeds texts with a model served over HTTP: an
// OpenAI-compatible /embeddings endpoint or Ollama's /api/embed.
//
// Both protocols go through one retrying http.RoundTripper (retry.go, built
// on providers/httpretry's policy), so attempts, per-attempt timeouts and
// backoff behave the same for each, and every answer is checked (count,
// order, length, finite numbers) before a vector leaves the package.
// Provider errors, key masking and redaction, and the URL, key and model
// checks are providers/providerhttp's, shared with providers/llm.
//
// The JSON clients are written here with net/http rather than taken from
// github.com/tmc/langchaingo (v0.1.14 was read): its OpenAI client accepts
// a base URL, `dimensions` and a custom *http.Client, but it appends the
// answer's vectors in arrival order ignoring `index`, folds the HTTP status
// into an error string (so a 401 cannot be told from a 503 without parsing
// text), passes the provider's error message through unredacted (OpenAI
// echoes part of a wrong key), cannot send `encoding_format`, refuses an
// empty key (keyless local servers) and falls back to OPENAI_API_KEY /
// OPENAI_BASE_URL from the environment. Its Ollama client calls /api/embed
// with one text per request, so no batching. The two small clients here
// cost less than working around that.
package remote
