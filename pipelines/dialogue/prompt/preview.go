package prompt

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
)

// Preview renders v for an admin. values fill the custom variables and
// may also stand in for built-in ones (a sample message, slots or
// evidence, which a preview has no session to take from), overriding
// builtins; those are reported as SourceValue. A name in values that v
// does not declare is CodeValidation (/values/<name>), so a typo is not
// silently ignored; so is a required variable left unfilled.
func Preview(v domain.PromptVersion, builtins, values map[string]string) (Rendered, error) {
	declared := map[string]domain.PromptVariableKind{}
	for _, d := range v.Variables {
		declared[d.Name] = d.Kind
	}
	var unknown []domain.FieldError
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if _, ok := declared[name]; !ok {
			unknown = append(unknown, domain.FieldError{Field: "/values/" + name,
				Message: fmt.Sprintf("version %d declares no variable %q", v.Version, name)})
		}
	}
	if len(unknown) > 0 {
		return Rendered{}, &domain.Error{Code: domain.CodeValidation, Message: "The values name variables the version does not declare.", Fields: unknown}
	}
	in := Input{Builtins: maps.Clone(builtins), Values: values}
	if in.Builtins == nil {
		in.Builtins = map[string]string{}
	}
	sampled := map[string]bool{}
	for name, val := range values {
		if declared[name] == domain.VarBuiltin && val != "" {
			in.Builtins[name], sampled[name] = val, true
		}
	}
	r, err := Render(v, in)
	for name := range sampled {
		if r.Filled[name] == SourceBuiltin {
			r.Filled[name] = SourceValue
		}
	}
	return r, err
}
