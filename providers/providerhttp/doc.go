// Package providerhttp holds what the HTTP clients of model providers
// (providers/embed/remote, providers/llm) share apart from retrying, which
// is providers/httpretry's: keeping an API key out of logs and errors
// (MaskKey, Redact, Provider.Scrub), turning a provider's non-2xx answer
// into a *domain.Error (Provider.StatusError: CodeUnavailable for passing
// trouble, CodeValidation for refusals that the configuration must fix),
// reading a provider's own error text (ErrorText, Message, Clip), and the
// checks of a configured base URL, API key and model name.
//
// Nothing here sends a request: the clients own their requests, attempts
// and protocol-specific errors.
package providerhttp
