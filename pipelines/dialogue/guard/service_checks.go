package guard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

// target is what a write changes, so that a validation error can name the
// field of that write's body.
type target int

const (
	targetWord target = iota
	targetRule
	targetSettings
)

// check returns the validation of a write of t (the word or rule id): the
// tenant's limits, then the engine compiling the whole configuration,
// disabled rules included.
func (s *Service) check(t target, id string) domain.GuardConfigCheck {
	return func(c domain.GuardConfig) error {
		switch {
		case t == targetWord && len(c.Words) > domain.MaxForbiddenWords:
			return domain.Invalid("/word", fmt.Sprintf("the tenant already has the maximum of %d forbidden words", domain.MaxForbiddenWords))
		case t == targetRule && len(c.Rules) > domain.MaxBehaviorRules:
			return domain.Invalid("/name", fmt.Sprintf("the tenant already has the maximum of %d behaviour rules", domain.MaxBehaviorRules))
		case t == targetSettings && len(c.Settings.HighRisk) > domain.MaxHighRiskLists:
			return domain.Invalid("/highRisk", fmt.Sprintf("at most %d high-risk lists", domain.MaxHighRiskLists))
		}
		if _, err := Compile(ConfigFrom(c, true)); err != nil {
			return bodyError(err, c, t, id)
		}
		return nil
	}
}

// bodyError rewrites the engine's field pointers, which point into the
// whole configuration ("/rules/2/pattern"), to the written body's field
// ("/pattern"). An error in another stored item (a rule that names a
// high-risk category the new settings remove) names the body field that
// caused it and says which item broke.
func bodyError(err error, c domain.GuardConfig, t target, id string) error {
	var de *domain.Error
	if !errors.As(err, &de) || len(de.Fields) == 0 {
		return err
	}
	out := &domain.Error{Code: de.Code, Message: de.Message, Err: de.Err}
	for _, f := range de.Fields {
		out.Fields = append(out.Fields, bodyField(f, c, t, id))
	}
	return out
}

// bodyField maps one engine field error; see bodyError.
func bodyField(f domain.FieldError, c domain.GuardConfig, t target, id string) domain.FieldError {
	parts := strings.SplitN(strings.TrimPrefix(f.Field, "/"), "/", 3)
	if len(parts) < 2 {
		return domain.FieldError{Field: fallbackField(t), Message: f.Message}
	}
	i, convErr := strconv.Atoi(parts[1])
	rest := ""
	if len(parts) == 3 {
		rest = parts[2]
	}
	switch {
	case convErr != nil:
	case parts[0] == "words" && i < len(c.Words):
		w := c.Words[i]
		if t == targetWord && w.ID == id {
			return domain.FieldError{Field: "/" + wordField(rest), Message: f.Message}
		}
		return domain.FieldError{Field: fallbackField(t), Message: fmt.Sprintf("forbidden word %q (%s): %s", w.Word, w.ID, f.Message)}
	case parts[0] == "rules" && i < len(c.Rules):
		r := c.Rules[i]
		if t == targetRule && r.ID == id {
			return domain.FieldError{Field: "/" + rest, Message: f.Message}
		}
		return domain.FieldError{Field: fallbackField(t), Message: fmt.Sprintf("behaviour rule %q (%s): %s", r.Name, r.ID, f.Message)}
	case parts[0] == "highRisk" && t == targetSettings:
		return f // the body has the same shape
	}
	return domain.FieldError{Field: fallbackField(t), Message: f.Message}
}

// wordField names the body field of an engine word field.
func wordField(engine string) string {
	if engine == "mode" {
		return "matchMode"
	}
	return engine
}

// fallbackField is the body field blamed for an error in another item.
func fallbackField(t target) string {
	switch t {
	case targetWord:
		return "/word"
	case targetRule:
		return "/category"
	}
	return "/highRisk"
}
