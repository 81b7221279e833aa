package prompt

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Builtin is what the service knows when it renders a prompt; Map turns it
// into Input.Builtins.
type Builtin struct {
	// TenantName is the tenant's name; TenantID stands in when it is empty.
	TenantName string
	TenantID   domain.TenantID
	// Now is the time of the render, shown in Location (UTC when nil).
	Now      time.Time
	Location *time.Location
	// Slots are the session's slots, rendered as sorted "key: value" lines.
	Slots map[string]string
	// Evidence are the retrieved passages, rendered numbered from [1].
	Evidence []string
	Summary  string
	Message  string
}

// Map returns the built-in variables' values.
func (b Builtin) Map() map[string]string {
	name := b.TenantName
	if name == "" {
		name = string(b.TenantID)
	}
	m := map[string]string{
		domain.BuiltinTenantName:  name,
		domain.BuiltinCurrentTime: CurrentTime(b.Now, b.Location),
		domain.BuiltinSlots:       FormatSlots(b.Slots),
		domain.BuiltinEvidence:    FormatEvidence(b.Evidence),
		domain.BuiltinSummary:     b.Summary,
		domain.BuiltinMessage:     b.Message,
	}
	return m
}

// CurrentTime renders t in loc (UTC when nil) as RFC 3339; the zero time
// means now.
func CurrentTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		t = time.Now()
	}
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.RFC3339)
}

// FormatSlots renders slots as "key: value" lines sorted by key.
func FormatSlots(slots map[string]string) string {
	keys := make([]string, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + ": " + slots[k]
	}
	return strings.Join(lines, "\n")
}

// FormatEvidence numbers the passages "[1] …", one per paragraph, so that
// an answer can cite them by number.
func FormatEvidence(passages []string) string {
	parts := make([]string, len(passages))
	for i, p := range passages {
		parts[i] = fmt.Sprintf("[%d] %s", i+1, strings.TrimSpace(p))
	}
	return strings.Join(parts, "\n\n")
}
