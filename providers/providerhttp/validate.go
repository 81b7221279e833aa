package providerhttp

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// Limits of the checks below. They keep one misconfigured tenant from
// holding memory without bound.
const (
	// MaxKeyLen is the longest API key accepted.
	MaxKeyLen = 500
	// MaxNameLen is the longest model (or deployment) name accepted.
	MaxNameLen = 200
)

// CheckBaseURL returns what is wrong with a provider's base URL u, or "".
// Messages never repeat the URL.
func CheckBaseURL(u string) string {
	if u == "" {
		return "is required"
	}
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return "is not a URL"
	case p.Scheme != "http" && p.Scheme != "https":
		return "must start with http:// or https://"
	case p.Host == "":
		return "has no host"
	case p.User != nil:
		// Credentials belong in the API key, which is never shown; a URL is.
		return "must not contain credentials; use the API key"
	case p.RawQuery != "" || p.Fragment != "" || p.ForceQuery || strings.ContainsAny(u, "?#"):
		// Even an empty one ("…/v1?"): the path the client appends would
		// become the query, and the tenant would pick the whole path.
		return "must not have a query or a fragment"
	}
	return ""
}

// CheckAPIKey returns what is wrong with an API key k, or "". An empty
// key is fine (keyless local servers); messages never repeat the key.
func CheckAPIKey(k string) string {
	switch {
	case len(k) > MaxKeyLen:
		return fmt.Sprintf("is longer than %d characters", MaxKeyLen)
	case strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		// A pasted key often carries a newline; sent as is it would be refused
		// by the provider with a confusing 401, or by net/http outright.
		return "contains spaces or control characters"
	}
	return ""
}

// CheckName returns what is wrong with a model name, or "": it is
// required and at most MaxNameLen bytes.
func CheckName(m string) string {
	switch {
	case strings.TrimSpace(m) == "":
		return "is required"
	case len(m) > MaxNameLen:
		return fmt.Sprintf("is longer than %d characters", MaxNameLen)
	}
	return ""
}
