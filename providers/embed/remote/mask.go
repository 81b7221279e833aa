package remote

import "strings"

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

// redact removes key from s. Keys under 4 characters are left alone: they
// would blank out ordinary text and are not secrets worth the name.
func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
