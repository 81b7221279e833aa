package domain

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// PrefixPromptTemplate is the prefix of prompt template ids.
const PrefixPromptTemplate = "tpl_"

// PromptScene names where a prompt is used; each scene has at most one
// active (published) template per tenant.
type PromptScene string

// The prompt scenes.
const (
	// SceneChat: the system instruction of customer answers.
	SceneChat PromptScene = "chat"
	// SceneRAGLab: the system instruction of the RAG lab's generation.
	SceneRAGLab PromptScene = "rag_lab"
	// SceneSummary: the instruction that makes a conversation summary.
	SceneSummary PromptScene = "summary"
)

// Valid reports whether s is one of the scenes.
func (s PromptScene) Valid() bool {
	return s == SceneChat || s == SceneRAGLab || s == SceneSummary
}

// PromptVariableKind says where a variable's value comes from.
type PromptVariableKind string

// The variable kinds.
const (
	// VarBuiltin: injected by the service at run time (one of the
	// Builtin* names).
	VarBuiltin PromptVariableKind = "builtin"
	// VarCustom: given with the request, or the variable's default.
	VarCustom PromptVariableKind = "custom"
)

// The built-in variables, injected by the service when a prompt renders.
const (
	// BuiltinTenantName is the tenant's name (its id when it has none).
	BuiltinTenantName = "tenant_name"
	// BuiltinCurrentTime is the time of the render, RFC 3339 in the
	// tenant's time zone.
	BuiltinCurrentTime = "current_time"
	// BuiltinSlots are the session's slots as "key: value" lines.
	BuiltinSlots = "slots"
	// BuiltinEvidence is the retrieved evidence, numbered "[1] …".
	BuiltinEvidence = "evidence"
	// BuiltinSummary is the conversation summary.
	BuiltinSummary = "summary"
	// BuiltinMessage is the customer's message.
	BuiltinMessage = "message"
)

// BuiltinVariables returns the built-in variable names, in a fixed order.
func BuiltinVariables() []string {
	return []string{BuiltinTenantName, BuiltinCurrentTime, BuiltinSlots, BuiltinEvidence, BuiltinSummary, BuiltinMessage}
}

// IsBuiltinVariable reports whether name is a built-in variable.
func IsBuiltinVariable(name string) bool { return slices.Contains(BuiltinVariables(), name) }

// Limits of a template's content, checked by PromptContent.Validate (the
// contract states them too).
const (
	MaxPromptInstructionRunes = 20000
	MaxPromptVariables        = 50
)

// PromptVariable declares one variable of a template version.
type PromptVariable struct {
	Name string
	Kind PromptVariableKind
	// Default fills the variable when nothing else does; "" means none.
	Default  string
	Required bool
	// Description is for people.
	Description string
}

// PromptContent is what a template version holds.
type PromptContent struct {
	// SystemInstruction is the text, with {{name}} placeholders.
	SystemInstruction string
	Variables         []PromptVariable
}

// promptPlaceholder finds "{{ ... }}" in an instruction; what is inside is
// checked to be a declared variable name. Braces cannot nest.
var promptPlaceholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// promptVariableName is the form of a variable name: an identifier.
var promptVariableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// PromptPlaceholder is one {{name}} in an instruction.
type PromptPlaceholder struct {
	// Start and End are the byte offsets of "{{" and just after "}}".
	Start, End int
	// Name is the text between the braces, spaces trimmed.
	Name string
}

// PromptPlaceholders returns the placeholders of an instruction in order.
// Spaces inside the braces are allowed: "{{ name }}" is "{{name}}".
func PromptPlaceholders(instruction string) []PromptPlaceholder {
	locs := promptPlaceholder.FindAllStringSubmatchIndex(instruction, -1)
	out := make([]PromptPlaceholder, len(locs))
	for i, l := range locs {
		out[i] = PromptPlaceholder{Start: l[0], End: l[1], Name: strings.TrimSpace(instruction[l[2]:l[3]])}
	}
	return out
}

// Validate checks the rules the contract cannot express, reporting every
// problem at once as CodeValidation with JSON pointers under /content:
// variable names are identifiers and unique; builtin variables are one of
// BuiltinVariables and custom ones are not; every placeholder in the
// instruction names a declared variable.
func (c PromptContent) Validate() error {
	var fields []FieldError
	add := func(field, format string, args ...any) {
		fields = append(fields, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(c.SystemInstruction) == "" {
		add("/content/system_instruction", "is required")
	}
	if n := len([]rune(c.SystemInstruction)); n > MaxPromptInstructionRunes {
		add("/content/system_instruction", "is longer than %d characters", MaxPromptInstructionRunes)
	}
	if len(c.Variables) > MaxPromptVariables {
		add("/content/variables", "has more than %d variables", MaxPromptVariables)
	}
	declared := map[string]bool{}
	for i, v := range c.Variables {
		field := fmt.Sprintf("/content/variables/%d", i)
		switch {
		case !promptVariableName.MatchString(v.Name):
			add(field+"/name", "must be an identifier (a letter or _, then letters, digits or _; at most 64)")
		case declared[v.Name]:
			add(field+"/name", "%q is declared twice", v.Name)
		}
		declared[v.Name] = true
		switch v.Kind {
		case VarBuiltin:
			if !IsBuiltinVariable(v.Name) {
				add(field+"/name", "%q is not a built-in variable (%s)", v.Name, strings.Join(BuiltinVariables(), ", "))
			}
		case VarCustom:
			if IsBuiltinVariable(v.Name) {
				add(field+"/kind", "%q is a built-in variable; declare it with kind builtin", v.Name)
			}
		default:
			add(field+"/kind", `must be "builtin" or "custom"`)
		}
	}
	reported := map[string]bool{}
	for _, p := range PromptPlaceholders(c.SystemInstruction) {
		if reported[p.Name] {
			continue
		}
		reported[p.Name] = true
		switch {
		case !promptVariableName.MatchString(p.Name):
			add("/content/system_instruction", "placeholder {{%s}} is not a variable name", p.Name)
		case !declared[p.Name]:
			add("/content/system_instruction", "placeholder {{%s}} is not a declared variable", p.Name)
		}
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The prompt template does not pass validation.", Fields: fields}
	}
	return nil
}

// Equal reports whether two contents are the same, so that a save that
// does not change the content makes no new version.
func (c PromptContent) Equal(o PromptContent) bool {
	return c.SystemInstruction == o.SystemInstruction && slices.Equal(c.Variables, o.Variables)
}

// PromptTemplate is a tenant's versioned prompt template. Content is the
// latest version's.
type PromptTemplate struct {
	ID          string
	TenantID    TenantID
	Name        string
	Description string
	// Scene is fixed at creation.
	Scene   PromptScene
	Content PromptContent
	// LatestVersion is the newest version; versions count from 1.
	LatestVersion int
	// PublishedVersion is nil until a version is published.
	PublishedVersion *int
	// Version is the optimistic-concurrency counter of the resource, not
	// a content version.
	Version   int32
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Versions is where the template's content versions stand.
func (t PromptTemplate) Versions() VersionState {
	return VersionState{Latest: t.LatestVersion, Published: t.PublishedVersion}
}

// PromptVersion is one immutable version of a template.
type PromptVersion struct {
	TemplateID        string
	Version           int
	Scene             PromptScene
	SystemInstruction string
	Variables         []PromptVariable
	CreatedAt         time.Time
	// Published: this is the template's published version.
	Published bool
	// LastPublishedAt is when it last became the published version; nil
	// if it never was.
	LastPublishedAt *time.Time
}

// Content returns the version's content.
func (v PromptVersion) Content() PromptContent {
	return PromptContent{SystemInstruction: v.SystemInstruction, Variables: v.Variables}
}

// PromptRenderStats aggregates the renders of one template version in one scene.
type PromptRenderStats struct {
	// TemplateID is "" for renders of the built-in instruction.
	TemplateID string
	// TemplateName is "" when the template is gone (or built-in).
	TemplateName string
	Version      int
	Scene        string
	Renders      int64
	Fallbacks    int64
	TokensTotal  int64
}

// PromptTemplateStore persists prompt templates, their versions, the
// active template of each scene, and render records. Every method is
// scoped to one tenant: another tenant's template is CodeNotFound.
type PromptTemplateStore interface {
	// CreatePromptTemplate stores t with its content as version 1.
	// Returns CodeConflict if the name is taken in the tenant, and
	// CodeQuotaExceeded at the tenant's prompt template quota.
	CreatePromptTemplate(ctx context.Context, t PromptTemplate) (PromptTemplate, error)
	// GetPromptTemplate returns CodeNotFound if it does not exist in the tenant.
	GetPromptTemplate(ctx context.Context, tenant TenantID, id string) (PromptTemplate, error)
	// ListPromptTemplates lists the tenant's templates newest first,
	// optionally of one scene.
	ListPromptTemplates(ctx context.Context, tenant TenantID, scene *PromptScene, p PageRequest) (Page[PromptTemplate], error)
	// UpdatePromptTemplate replaces name, description and content if
	// t.Version is current; a changed content becomes a new version.
	// Returns CodeNotFound, CodeVersionConflict or CodeConflict.
	UpdatePromptTemplate(ctx context.Context, t PromptTemplate) (PromptTemplate, error)
	// DeletePromptTemplate deletes it with its versions; a scene it was
	// active for returns to the built-in instruction. Returns CodeNotFound.
	DeletePromptTemplate(ctx context.Context, tenant TenantID, id string) error
	// ListPromptVersions lists a template's versions, newest first.
	// Returns CodeNotFound if the template does not exist in the tenant.
	ListPromptVersions(ctx context.Context, tenant TenantID, id string, p PageRequest) (Page[PromptVersion], error)
	// GetPromptVersion returns one version. Returns CodeNotFound.
	GetPromptVersion(ctx context.Context, tenant TenantID, id string, version int) (PromptVersion, error)
	// PublishPromptVersion makes version the template's published one and
	// the template the active one of its scene. With rollback, version
	// must be earlier than the published one. Returns CodeNotFound,
	// CodeValidation (no such version; not earlier) or
	// CodeInvalidTransition (rollback with nothing published).
	PublishPromptVersion(ctx context.Context, tenant TenantID, id string, version int, rollback bool) (PromptTemplate, error)
	// PublishedPrompt returns the published version of the scene's active
	// template. Returns CodeNotFound when the scene has none, so the
	// built-in instruction applies.
	PublishedPrompt(ctx context.Context, tenant TenantID, scene string) (PromptVersion, error)
	// RecordPromptRenders stores render records (of any tenants).
	RecordPromptRenders(ctx context.Context, renders []PromptRender) error
	// PromptRenderStats aggregates the tenant's renders in [from, to),
	// optionally of one scene, by template, version and scene.
	PromptRenderStats(ctx context.Context, tenant TenantID, from, to time.Time, scene *PromptScene) ([]PromptRenderStats, error)
}
