package providerhttp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

// MaskKey shows enough of an API key to recognise it: a short vendor
// prefix and the last four characters ("sk-…abcd"). Keys under 12
// characters show nothing but "…", since four of them would be a large
// share of the secret; "" stays "".
func MaskKey(k string) string {
	if k == "" {
		return ""
	}
	r := []rune(k)
	if len(r) < 12 {
		return "…"
	}
	prefix := ""
	// Only a vendor tag like "sk-" is shown, never a longer head of the key.
	if i := strings.IndexByte(k, '-'); i > 0 && i <= 4 && isAlnum(k[:i]) {
		prefix = k[:i+1]
	}
	return prefix + "…" + string(r[len(r)-4:])
}

func isAlnum(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Redact removes key from s. Keys under 4 characters are left alone: they
// would blank out ordinary text and are not secrets worth the name.
func Redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// Scrub is the last guard against leaking p.Key: provider messages are
// redacted where they are read, but should the key still show up in an
// error's text (say, a proxy quoting the request), the error is rebuilt
// from redacted text and loses its chain. A *domain.Error keeps its code;
// any other error becomes CodeUnavailable "<Subject> failed". Errors
// without the key, nil included, are returned as they are.
func (p Provider) Scrub(err error) error {
	if err == nil || len(p.Key) < 4 || !strings.Contains(fmt.Sprintf("%v %+v", err, err), p.Key) {
		return err
	}
	var de *domain.Error
	if !errors.As(err, &de) {
		return Unavailable(p.Subject+" failed", errors.New(Redact(err.Error(), p.Key)))
	}
	clean := &domain.Error{Code: de.Code, Message: Redact(de.Message, p.Key)}
	if de.Err != nil {
		clean.Err = errors.New(Redact(de.Err.Error(), p.Key))
	}
	return clean
}
