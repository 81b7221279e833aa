package flow

import (
	"fmt"

	"github.com/cs-assistant/assistant/domain"
)

// EngineError is an engine condition the caller tells apart with
// errors.Is. It is a string type so that its values are constants, not
// package variables.
type EngineError string

// Error implements error.
func (e EngineError) Error() string { return string(e) }

const (
	// ErrStaleState: the state does not fit the flow any more, because the
	// flow was edited under a running instance (its step is gone or no
	// longer waits for input) or the state belongs to another flow. It
	// comes wrapped in a *domain.Error with CodeValidation naming
	// "/state/step_no" or "/state/flow_id". The caller drops the instance
	// (it cannot be continued) and handles the message as if no flow were
	// active.
	ErrStaleState EngineError = "flow: the instance's state no longer fits the flow"
	// ErrEnded: Advance was called on a finished instance; the caller
	// checks Active first. A caller bug, so it is not a *domain.Error and
	// maps to CodeInternal.
	ErrEnded EngineError = "flow: the instance has ended"
)

// stale builds the error for a state that does not fit the flow. The
// detail goes in the field message and, for the log, in the cause.
func stale(field, format string, args ...any) error {
	detail := fmt.Sprintf(format, args...)
	return &domain.Error{
		Code:    domain.CodeValidation,
		Message: "The script flow changed; this conversation's flow can no longer continue.",
		Fields:  []domain.FieldError{{Field: field, Message: detail}},
		Err:     fmt.Errorf("%w: %s", ErrStaleState, detail),
	}
}
