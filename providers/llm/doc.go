// Package llm gives each tenant its configured language model per usage
// type. New turns a configuration into a domain.ChatModel: a client of an
// OpenAI-compatible /chat/completions server, of Azure OpenAI, or of
// Ollama's /api/chat, or the offline extractive answerer, which quotes the
// evidence and needs no model. Registry keeps each tenant's models, built
// from the stored configurations and changed without a restart (dropped
// on change, here and on every replica), and Configs is what the admin API
// does with those configurations (read, replace, try).
//
// The three HTTP protocols share one attempt loop (retry.go, with the
// policy pieces in providers/httpretry): a timed-out attempt, a 429 or
// 5xx answer, or a dropped connection is tried again after the provider's
// Retry-After or a jittered exponential backoff, within the caller's
// deadline. Streams are retried only while nothing has reached the
// caller; after that a failure is final, so no text is ever repeated. A
// stream's timeout is a watchdog on silence, not a deadline, so long
// answers that keep coming are not cut off. Reasoning is kept out of the
// answer everywhere: <think>…</think> text, even with its tags split
// across chunks (think.go), and the providers' reasoning fields
// (reasoning_content, reasoning, Ollama's thinking).
//
// Errors are *domain.Error: CodeUnavailable for provider trouble once the
// retries are spent (timeouts included) and for the caller's own
// cancellation (which it wraps, for errors.Is), CodeValidation for
// refusals (401/403/404/400…). The API key never appears in them:
// provider text is redacted where it is read, and scrubbed again at the end.
// The status mapping, redaction and the URL, key and name checks are
// providers/providerhttp's, shared with the embedding client.
//
// The clients are written here with net/http rather than taken from
// github.com/tmc/langchaingo (v0.1.14 was read and run against local
// fakes). It fits badly where this package needs it most:
//   - Temperature: its OpenAI request drops temperature for model names
//     it guesses are reasoning models ("gpt-5…", "o1-…", "o3…"), so a
//     tenant's configured 0 silently becomes the provider's default.
//   - Errors: a non-200 answer becomes a plain errors.New string ("API
//     returned unexpected status code: 401: …") with the provider's text
//     unredacted; telling 401 from 503 would mean parsing text, and its
//     MapError does exactly that by substring ("400", "503"). Transport
//     errors are replaced by new strings, losing context.Canceled.
//   - Reasoning: the OpenAI client streams reasoning_content, but its
//     Ollama client has no message.thinking field and drops it, and puts
//     "think" in the options rather than the request.
//   - Streams: no watchdog for a stalled stream, no way to know whether a
//     chunk reached the caller before a failure (which our no-duplicate
//     retry rule needs), and retries could only be an http.RoundTripper,
//     which cannot see the stream.
//   - Configuration: it refuses an empty key (keyless local servers) and
//     falls back to OPENAI_API_KEY, OPENAI_BASE_URL and OLLAMA_HOST from
//     the environment, which in a multi-tenant service could send one
//     tenant's prompts with the operator's key.
//
// It does accept our *http.Client and a base URL, and its Azure URL and
// api-key header are right; but the three small protocol files here are
// shorter than the workarounds would be.
package llm
