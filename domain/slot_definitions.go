package domain

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"time"
)

// PrefixSlotDefinition is the prefix of slot definition ids.
const PrefixSlotDefinition = "slot_"

// Limits of slot definitions, as the contract states them.
const (
	// MaxSlotDefinitions bounds a tenant's definitions: every message that
	// reaches retrieval reads them all.
	MaxSlotDefinitions = 200
	// MaxSlotPatternLen bounds a definition's pattern, in bytes.
	MaxSlotPatternLen = 500
	// MaxSlotArrayItems bounds the items of a string_array value.
	MaxSlotArrayItems = 100
)

// SlotStatus is where a slot definition is in its life.
type SlotStatus string

// Slot statuses.
const (
	// SlotActive: listed to chat clients and filled by the decomposition.
	SlotActive SlotStatus = "active"
	// SlotDeprecated: still accepted in sessions, neither listed nor filled.
	SlotDeprecated SlotStatus = "deprecated"
)

// Valid reports whether s is a status.
func (s SlotStatus) Valid() bool { return s == SlotActive || s == SlotDeprecated }

// SlotDefinition is a tenant's definition of one session slot. Values of
// every type travel and are stored as strings (Normalise says how).
type SlotDefinition struct {
	ID       string
	TenantID TenantID
	// Key is the slot's name in a session's slots; fixed at creation.
	Key   string
	Label string
	// Type reuses the metadata types: a slot holds what a field may.
	Type       MetadataFieldType
	EnumValues []string
	// Required tells clients to ask for the value; the service does not
	// refuse a session without it.
	Required bool
	// Pattern is an RE2 pattern the whole value (each item of a
	// string_array) must match; "" for none.
	Pattern string
	// Prompt asks the customer for the value.
	Prompt string
	// MetadataFieldID links the metadata field the value filters
	// retrieval by; "" for none.
	MetadataFieldID string
	Status          SlotStatus
	Description     string
	Version         int32
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// Validate checks the rules the contract cannot express, all at once, as
// CodeValidation naming body fields: a slot key, a known type and status,
// enum values exactly for enums, and a pattern only for string types that
// compiles.
func (d SlotDefinition) Validate() error {
	var fields []FieldError
	add := func(field, msg string) { fields = append(fields, FieldError{Field: field, Message: msg}) }
	if !ValidSlotKey(d.Key) {
		add("/key", "a slot name matches ^[a-z][a-z0-9_]{0,63}$")
	}
	switch d.Type {
	case MetaString, MetaNumber, MetaBoolean, MetaDate, MetaEnum, MetaStringArray:
	default:
		add("/type", "must be string, number, boolean, date, enum or string_array")
	}
	switch {
	case d.Type == MetaEnum && len(d.EnumValues) == 0:
		add("/enumValues", "an enum slot needs at least one value")
	case d.Type != MetaEnum && len(d.EnumValues) > 0:
		add("/enumValues", "only enum slots take enumValues")
	}
	seen := map[string]bool{}
	for i, v := range d.EnumValues {
		if f := foldSlot(v); seen[f] {
			add(fmt.Sprintf("/enumValues/%d", i), fmt.Sprintf("%q is the same value as an earlier one (case and spaces aside)", v))
		} else {
			seen[f] = true
		}
	}
	if d.Pattern != "" {
		switch {
		case d.Type != MetaString && d.Type != MetaStringArray:
			add("/pattern", "only string and string_array slots take a pattern")
		case len(d.Pattern) > MaxSlotPatternLen:
			add("/pattern", fmt.Sprintf("must be at most %d bytes", MaxSlotPatternLen))
		default:
			// Parsed, not compiled: a pattern's program is built only once
			// its cost is known to be bounded (the slot service checks it).
			if _, err := syntax.Parse(d.Pattern, syntax.Perl); err != nil {
				add("/pattern", "does not compile: "+err.Error())
			}
		}
	}
	if !d.Status.Valid() {
		add("/status", "must be active or deprecated")
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The slot definition does not pass validation.", Fields: fields}
	}
	return nil
}

// Normalise reads a value as the definition's type and returns it as a
// session stores it, or why it does not fit (the second result, "" when
// it fits): strings trimmed; numbers as decimals ("12.5"); booleans as
// "true" or "false" (yes/no, 1/0, 是/否 read too); dates as 2026-11-22 (a
// date-time is cut to its UTC date); enum values as written in EnumValues,
// matched ignoring case; string_array items separated by commas, trimmed,
// joined by ", ". The pattern applies to the whole string, or each item.
func (d SlotDefinition) Normalise(value string) (string, string) { return d.normalise(value, nil) }

// normalise is Normalise, with match (when not nil) telling whether a
// value matches the pattern whole instead of compiling it.
func (d SlotDefinition) normalise(value string, match func(string) bool) (string, string) {
	v := strings.TrimSpace(value)
	if v == "" {
		return "", "must not be empty"
	}
	var out, msg string
	switch d.Type {
	case MetaString:
		out, msg = v, d.matchPattern(v, match)
	case MetaNumber:
		out, msg = normaliseNumber(v)
	case MetaBoolean:
		out, msg = normaliseBool(v)
	case MetaDate:
		t, err := ParseMetadataDate(v)
		if err != nil {
			return "", "must be a date (2026-11-22) or an RFC 3339 date-time"
		}
		out = t.UTC().Format(time.DateOnly)
	case MetaEnum:
		i := slices.IndexFunc(d.EnumValues, func(e string) bool { return foldSlot(e) == foldSlot(v) })
		if i < 0 {
			return "", fmt.Sprintf("must be one of %q", d.EnumValues)
		}
		out = d.EnumValues[i]
	case MetaStringArray:
		out, msg = d.normaliseArray(v, match)
	default:
		return "", "the slot's definition has an unknown type"
	}
	if msg == "" && len([]rune(out)) > MaxSlotValueLen {
		msg = fmt.Sprintf("a slot value has at most %d characters", MaxSlotValueLen)
	}
	if msg != "" {
		return "", msg
	}
	return out, ""
}

// Items splits a normalised string_array value into its items (a value of
// another type is one item).
func (d SlotDefinition) Items(value string) []string {
	if d.Type != MetaStringArray {
		return []string{value}
	}
	var out []string
	for _, it := range strings.Split(value, ",") {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

func (d SlotDefinition) normaliseArray(v string, match func(string) bool) (string, string) {
	items := d.Items(v)
	if len(items) == 0 {
		return "", "must hold at least one item (items are separated by commas)"
	}
	if len(items) > MaxSlotArrayItems {
		return "", fmt.Sprintf("must hold at most %d items", MaxSlotArrayItems)
	}
	for _, it := range items {
		if msg := d.matchPattern(it, match); msg != "" {
			return "", fmt.Sprintf("item %q %s", it, msg)
		}
	}
	return strings.Join(items, ", "), ""
}

// matchPattern says why v does not match the whole pattern ("" when it
// does, or there is none), with match when not nil, else compiling the
// pattern. A pattern that stopped compiling (it is checked on save)
// refuses nothing.
func (d SlotDefinition) matchPattern(v string, match func(string) bool) string {
	if d.Pattern == "" {
		return ""
	}
	if match != nil {
		if match(v) {
			return ""
		}
		return "must match " + d.Pattern
	}
	re, err := regexp.Compile(`^(?:` + d.Pattern + `)$`)
	if err != nil || re.MatchString(v) {
		return ""
	}
	return "must match " + d.Pattern
}

func normaliseNumber(v string) (string, string) {
	n, ok := parseSlotNumber(v)
	if !ok {
		return "", "must be a number (12 or 12.5)"
	}
	return formatSlotNumber(n), ""
}

func normaliseBool(v string) (string, string) {
	switch strings.ToLower(v) {
	case "true", "yes", "y", "1", "是", "对":
		return "true", ""
	case "false", "no", "n", "0", "否", "不":
		return "false", ""
	}
	return "", "must be true or false"
}

// foldSlot is how enum values compare: case and surrounding spaces aside.
func foldSlot(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// SlotRules are a tenant's slot definitions by key: what session slots
// may hold. Without definitions any slot is accepted as it is.
type SlotRules struct {
	byKey map[string]SlotDefinition
	// match holds, by key, the patterns compiled once (WithPatterns).
	match map[string]func(string) bool
}

// NewSlotRules indexes defs by key.
func NewSlotRules(defs []SlotDefinition) SlotRules {
	r := SlotRules{byKey: make(map[string]SlotDefinition, len(defs))}
	for _, d := range defs {
		r.byKey[d.Key] = d
	}
	return r
}

// WithPatterns returns r with the pattern of each definition that has one
// compiled once by compile, which returns whether a value matches the
// whole pattern; Value then uses it. Bounding what a tenant's pattern may
// cost is the caller's (the message path's cache compiles them within
// the bounds of package safere). Without it, Value compiles a pattern on
// every check.
func (r SlotRules) WithPatterns(compile func(pattern string) func(value string) bool) SlotRules {
	out := SlotRules{byKey: r.byKey, match: make(map[string]func(string) bool, len(r.byKey))}
	for k, d := range r.byKey {
		if d.Pattern != "" {
			out.match[k] = compile(d.Pattern)
		}
	}
	return out
}

// Empty reports whether the tenant has no definitions (slots are free-form).
func (r SlotRules) Empty() bool { return len(r.byKey) == 0 }

// Get returns the definition of key.
func (r SlotRules) Get(key string) (SlotDefinition, bool) {
	d, ok := r.byKey[key]
	return d, ok
}

// Value checks one value of slot key (Normalise, with the pattern
// compiled once when r was made WithPatterns): the value as stored, or
// why it is refused ("" when it is not). With no definitions every value
// is kept.
func (r SlotRules) Value(key, value string) (string, string) {
	if r.Empty() {
		return value, ""
	}
	d, ok := r.byKey[key]
	if !ok {
		return "", "no slot definition has this key"
	}
	return d.normalise(value, r.match[key])
}

// Check checks every value (field is the JSON pointer of the slots object,
// "/slots") and returns them normalised, or CodeSlotInvalid with one field
// error per refused slot.
func (r SlotRules) Check(field string, values map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(values))
	var errs []FieldError
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v, msg := r.Value(k, values[k])
		if msg != "" {
			errs = append(errs, FieldError{Field: field + "/" + escapePointer(k), Message: msg})
			continue
		}
		out[k] = v
	}
	if len(errs) > 0 {
		return nil, &Error{Code: CodeSlotInvalid, Message: "The slots do not fit the tenant's slot definitions.", Fields: errs}
	}
	return out, nil
}

// SlotDefinitionStore persists slot definitions, per tenant: another
// tenant's definition is CodeNotFound.
type SlotDefinitionStore interface {
	// CreateSlotDefinition returns CodeConflict if the key is taken in the
	// tenant, CodeValidation past MaxSlotDefinitions.
	CreateSlotDefinition(ctx context.Context, d SlotDefinition) (SlotDefinition, error)
	// GetSlotDefinition returns CodeNotFound if it does not exist in the tenant.
	GetSlotDefinition(ctx context.Context, tenant TenantID, id string) (SlotDefinition, error)
	// ListSlotDefinitions lists definitions ordered by key, optionally of one status.
	ListSlotDefinitions(ctx context.Context, tenant TenantID, status *SlotStatus, p PageRequest) (Page[SlotDefinition], error)
	// UpdateSlotDefinition replaces everything but the key if d.Version is
	// current. Returns CodeNotFound or CodeVersionConflict.
	UpdateSlotDefinition(ctx context.Context, d SlotDefinition) (SlotDefinition, error)
	// DeleteSlotDefinition returns CodeNotFound if it does not exist in the tenant.
	DeleteSlotDefinition(ctx context.Context, tenant TenantID, id string) error
}

// SlotDefinitionLister lists slot definitions a page at a time.
type SlotDefinitionLister interface {
	ListSlotDefinitions(ctx context.Context, tenant TenantID, status *SlotStatus, p PageRequest) (Page[SlotDefinition], error)
}

// SlotRulesReader gives a tenant's slot definitions, whatever their status,
// as SlotRules: the store, a page at a time (LoadSlotRules), or a cache of
// each tenant's rules (slots.Cache), which the message path reads.
type SlotRulesReader interface {
	SlotRules(ctx context.Context, tenant TenantID) (SlotRules, error)
}

// LoadSlotRules reads every slot definition of tenant, whatever its status.
func LoadSlotRules(ctx context.Context, s SlotDefinitionLister, tenant TenantID) (SlotRules, error) {
	defs, err := All(func(p PageRequest) (Page[SlotDefinition], error) { return s.ListSlotDefinitions(ctx, tenant, nil, p) })
	if err != nil {
		return SlotRules{}, err
	}
	return NewSlotRules(defs), nil
}
