package domain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// PrefixDecompositionTemplate is the prefix of decomposition template ids.
const PrefixDecompositionTemplate = "dt_"

// Limits of a decomposition template's content (the contract states them too).
const (
	MaxDecompositionInstructionRunes = 8000
	MaxDecompositionTargets          = 50
	MaxDecompositionExamples         = 10
)

// DecompositionTargetKind says what a target fills.
type DecompositionTargetKind string

// The target kinds.
const (
	// TargetSlot fills the session slot of a slot definition.
	TargetSlot DecompositionTargetKind = "slot"
	// TargetMetadata fills a document metadata field: a retrieval filter
	// for a message, a proposal for an upload.
	TargetMetadata DecompositionTargetKind = "metadata"
)

// DecompositionTarget is one value to extract.
type DecompositionTarget struct {
	Kind DecompositionTargetKind
	// Key is the slot definition's or metadata field's key.
	Key         string
	Description string
	Examples    []string
}

// DecompositionContent is what a template version holds.
type DecompositionContent struct {
	// Instruction is what the model is told before the targets.
	Instruction string
	Targets     []DecompositionTarget
}

// Validate checks the rules the contract cannot express, all at once, as
// CodeValidation with JSON pointers under /content: a non-blank
// instruction, 1 to MaxDecompositionTargets targets of a known kind, with
// a key, each kind and key once, and non-blank examples.
func (c DecompositionContent) Validate() error {
	var fields []FieldError
	add := func(field, format string, args ...any) {
		fields = append(fields, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(c.Instruction) == "" {
		add("/content/instruction", "is required")
	}
	if n := len([]rune(c.Instruction)); n > MaxDecompositionInstructionRunes {
		add("/content/instruction", "is longer than %d characters", MaxDecompositionInstructionRunes)
	}
	if len(c.Targets) == 0 || len(c.Targets) > MaxDecompositionTargets {
		add("/content/targets", "must have 1 to %d targets", MaxDecompositionTargets)
	}
	seen := map[string]int{}
	for i, t := range c.Targets {
		at := fmt.Sprintf("/content/targets/%d", i)
		if t.Kind != TargetSlot && t.Kind != TargetMetadata {
			add(at+"/kind", `must be "slot" or "metadata"`)
		}
		if !ValidSlotKey(t.Key) {
			add(at+"/key", "a key matches ^[a-z][a-z0-9_]{0,63}$")
		}
		if j, dup := seen[string(t.Kind)+":"+t.Key]; dup {
			add(at+"/key", "target %d already extracts the %s %q", j, t.Kind, t.Key)
		} else {
			seen[string(t.Kind)+":"+t.Key] = i
		}
		if len(t.Examples) > MaxDecompositionExamples {
			add(at+"/examples", "at most %d examples", MaxDecompositionExamples)
		}
		for k, ex := range t.Examples {
			if strings.TrimSpace(ex) == "" {
				add(fmt.Sprintf("%s/examples/%d", at, k), "must not be blank")
			}
		}
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The decomposition template does not pass validation.", Fields: fields}
	}
	return nil
}

// Equal reports whether two contents are the same, so that a save that
// does not change the content makes no new version.
func (c DecompositionContent) Equal(o DecompositionContent) bool {
	return c.Instruction == o.Instruction && slices.EqualFunc(c.Targets, o.Targets, func(a, b DecompositionTarget) bool {
		return a.Kind == b.Kind && a.Key == b.Key && a.Description == b.Description && slices.Equal(a.Examples, b.Examples)
	})
}

// DecompositionTemplate is a tenant's versioned decomposition template.
// Content is the latest version's.
type DecompositionTemplate struct {
	ID          string
	TenantID    TenantID
	Name        string
	Description string
	Content     DecompositionContent
	// LatestVersion is the newest version; versions count from 1.
	LatestVersion int
	// PublishedVersion is nil until a version is published.
	PublishedVersion *int
	// Active: this is the tenant's active template.
	Active bool
	// Version is the optimistic-concurrency counter of the resource, not
	// a content version.
	Version   int32
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Versions is where the template's content versions stand.
func (t DecompositionTemplate) Versions() VersionState {
	return VersionState{Latest: t.LatestVersion, Published: t.PublishedVersion}
}

// DecompositionVersion is one immutable version of a template.
type DecompositionVersion struct {
	TemplateID string
	Version    int
	Content    DecompositionContent
	CreatedAt  time.Time
	// Published: this is the template's published version.
	Published bool
	// LastPublishedAt is when it last became the published version; nil
	// if it never was.
	LastPublishedAt *time.Time
}

// DecompositionStore persists decomposition templates, their versions and
// the tenant's active template. Every method is scoped to one tenant:
// another tenant's template is CodeNotFound.
type DecompositionStore interface {
	// CreateDecompositionTemplate stores t with its content as version 1.
	// Returns CodeConflict if the name is taken in the tenant, and
	// CodeQuotaExceeded at the tenant's decomposition template quota.
	CreateDecompositionTemplate(ctx context.Context, t DecompositionTemplate) (DecompositionTemplate, error)
	// GetDecompositionTemplate returns CodeNotFound if it does not exist in the tenant.
	GetDecompositionTemplate(ctx context.Context, tenant TenantID, id string) (DecompositionTemplate, error)
	// ListDecompositionTemplates lists the tenant's templates newest first.
	ListDecompositionTemplates(ctx context.Context, tenant TenantID, p PageRequest) (Page[DecompositionTemplate], error)
	// UpdateDecompositionTemplate replaces name, description and content if
	// t.Version is current; a changed content becomes a new version.
	// Returns CodeNotFound, CodeVersionConflict or CodeConflict.
	UpdateDecompositionTemplate(ctx context.Context, t DecompositionTemplate) (DecompositionTemplate, error)
	// DeleteDecompositionTemplate deletes it with its versions; if it was
	// the active template, none is. Returns CodeNotFound.
	DeleteDecompositionTemplate(ctx context.Context, tenant TenantID, id string) error
	// ListDecompositionVersions lists a template's versions, newest first.
	// Returns CodeNotFound if the template does not exist in the tenant.
	ListDecompositionVersions(ctx context.Context, tenant TenantID, id string, p PageRequest) (Page[DecompositionVersion], error)
	// GetDecompositionVersion returns one version. Returns CodeNotFound.
	GetDecompositionVersion(ctx context.Context, tenant TenantID, id string, version int) (DecompositionVersion, error)
	// PublishDecompositionVersion makes version the template's published
	// one and the template the tenant's active one, under
	// VersionState.CheckPublish. Returns CodeNotFound, CodeValidation or
	// CodeInvalidTransition.
	PublishDecompositionVersion(ctx context.Context, tenant TenantID, id string, version int, rollback bool) (DecompositionTemplate, error)
	// PublishedDecomposition returns the published version of the tenant's
	// active template. Returns CodeNotFound when there is none.
	PublishedDecomposition(ctx context.Context, tenant TenantID) (DecompositionVersion, error)
}

// NormaliseMetadataValue checks one value (decoded JSON) against field's
// type as ValidateMetadata does, returning it normalised or why it does
// not fit ("" when it does): how a proposed or extracted value is
// "validated like user metadata", one key at a time.
func NormaliseMetadataValue(field MetadataField, v any) (any, string) {
	return normaliseValue(field, v)
}
