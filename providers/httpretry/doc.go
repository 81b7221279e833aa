// Package httpretry holds the pieces of a retry policy for calls to HTTP
// providers that do not depend on the protocol: which outcomes deserve
// another attempt, how long to wait before it (exponential backoff with
// full jitter, or the provider's Retry-After), and a context-aware sleep.
//
// It decides nothing about bodies, streams or error messages; callers own
// their attempt loop, because a stream that has already reached the user
// must not be retried, which a blind http.RoundTripper cannot know.
package httpretry
