package domain

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits of a session's slots, as the contract documents them.
const (
	// MaxSessionSlots bounds the number of slots of one session.
	MaxSessionSlots = 50
	// MaxSlotKeyLen bounds a slot name (^[a-z][a-z0-9_]{0,63}$).
	MaxSlotKeyLen = 64
	// MaxSlotValueLen bounds a slot value, in characters.
	MaxSlotValueLen = 500
)

// ValidSlotKey reports whether key is a slot name: a lower-case letter,
// then up to 63 lower-case letters, digits or underscores.
func ValidSlotKey(key string) bool {
	if key == "" || len(key) > MaxSlotKeyLen || key[0] < 'a' || key[0] > 'z' {
		return false
	}
	for i := 1; i < len(key); i++ {
		c := key[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// ValidateSlots checks a session's slots: at most MaxSessionSlots, names
// that are ValidSlotKey, values of at most MaxSlotValueLen characters.
// field is the JSON pointer of the slots object ("/slots"); each bad slot
// is named below it. Returns CodeValidation listing every problem.
func ValidateSlots(field string, slots map[string]string) error {
	var errs []FieldError
	if len(slots) > MaxSessionSlots {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf("at most %d slots", MaxSessionSlots)})
	}
	keys := make([]string, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the errors come in a stable order
	for _, k := range keys {
		at := field + "/" + escapePointer(k)
		if !ValidSlotKey(k) {
			errs = append(errs, FieldError{Field: at, Message: "a slot name matches ^[a-z][a-z0-9_]{0,63}$"})
		}
		if n := utf8.RuneCountInString(slots[k]); n > MaxSlotValueLen {
			errs = append(errs, FieldError{Field: at, Message: fmt.Sprintf("a slot value has at most %d characters, not %d", MaxSlotValueLen, n)})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &Error{Code: CodeValidation, Message: "The request does not pass validation.", Fields: errs}
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
