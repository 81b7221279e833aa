package prompt

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
)

// Sources of a filled variable, as Rendered.Filled reports them.
const (
	SourceBuiltin = "builtin"
	SourceValue   = "value"
	SourceDefault = "default"
)

// Input is what a render fills the variables with.
type Input struct {
	// Builtins are the built-in variables' values (see Builtin.Map).
	Builtins map[string]string
	// Values are the custom variables' values. Values of names that are
	// not custom variables of the version are ignored.
	Values map[string]string
}

// Rendered is a rendered system instruction.
type Rendered struct {
	Text string
	// Tokens is Text's length in cl100k_base tokens.
	Tokens int
	// Filled maps each filled variable to its source: SourceBuiltin,
	// SourceValue or SourceDefault. Optional variables left unfilled are
	// absent (and rendered as "").
	Filled map[string]string
	// Missing are the required variables nothing filled, sorted.
	Missing []string
}

// tokenizer is the cl100k_base tokenizer, loaded on first use (about
// 100 ms). Render's signature is fixed for its callers, so the tokenizer
// cannot be passed in; it is immutable once loaded, so sharing it keeps no
// mutable state.
var tokenizer = sync.OnceValues(chunk.NewTokenizer)

// CountTokens returns the cl100k_base token count of s.
func CountTokens(s string) (int, error) {
	tok, err := tokenizer()
	if err != nil {
		return 0, err
	}
	return tok.Count(s), nil
}

// Render fills v's placeholders from in. When required variables are left
// unfilled it returns the Rendered with Missing set (and no Text) and a
// *domain.Error with CodeValidation naming each as /values/<name>.
func Render(v domain.PromptVersion, in Input) (Rendered, error) {
	out := Rendered{Filled: map[string]string{}}
	values := make(map[string]string, len(v.Variables))
	for _, decl := range v.Variables {
		val, src := fill(decl, in)
		switch {
		case src != "":
			values[decl.Name], out.Filled[decl.Name] = val, src
		case decl.Required:
			out.Missing = append(out.Missing, decl.Name)
		}
	}
	if len(out.Missing) > 0 {
		slices.Sort(out.Missing)
		return out, missingError(out.Missing)
	}
	out.Text = substitute(v.SystemInstruction, values)
	n, err := CountTokens(out.Text)
	if err != nil {
		return Rendered{}, err
	}
	out.Tokens = n
	return out, nil
}

// fill returns a variable's value and its source, or "" and "" when
// nothing fills it.
func fill(decl domain.PromptVariable, in Input) (string, string) {
	if decl.Kind == domain.VarBuiltin {
		if s := in.Builtins[decl.Name]; s != "" {
			return s, SourceBuiltin
		}
	} else if s := in.Values[decl.Name]; s != "" {
		return s, SourceValue
	}
	if decl.Default != "" {
		return decl.Default, SourceDefault
	}
	return "", ""
}

// substitute replaces every placeholder with its variable's value ("" for
// an unfilled optional one), in one pass so that values are not expanded.
func substitute(instruction string, values map[string]string) string {
	var b strings.Builder
	b.Grow(len(instruction))
	last := 0
	for _, p := range domain.PromptPlaceholders(instruction) {
		b.WriteString(instruction[last:p.Start])
		b.WriteString(values[p.Name])
		last = p.End
	}
	b.WriteString(instruction[last:])
	return b.String()
}

func missingError(names []string) error {
	e := &domain.Error{Code: domain.CodeValidation, Message: "Required prompt variables are not filled: " + strings.Join(names, ", ") + "."}
	for _, n := range names {
		e.Fields = append(e.Fields, domain.FieldError{Field: "/values/" + n, Message: fmt.Sprintf("required variable %q is not filled", n)})
	}
	return e
}
