package domain

import (
	"errors"
	"fmt"
)

// ErrorCode is a stable, snake_case error code. Clients switch on it, so a
// code never changes meaning once published.
type ErrorCode string

// The error vocabulary. The server maps each code to one HTTP status.
const (
	// CodeValidation: the input breaks a rule of the contract or of the domain.
	CodeValidation ErrorCode = "validation_failed"
	// CodeMalformedJSON: the request body is not valid JSON.
	CodeMalformedJSON ErrorCode = "malformed_json"
	// CodeInvalidTenantID: the X-Tenant-Id header is missing or badly formed.
	CodeInvalidTenantID ErrorCode = "invalid_tenant_id"
	// CodeInvalidCursor: a list cursor that this service did not hand out.
	CodeInvalidCursor ErrorCode = "invalid_cursor"
	// CodeUnauthorized: no API key, or one that is unknown, expired or revoked.
	CodeUnauthorized ErrorCode = "unauthorized"
	// CodeForbidden: the key lacks the scope or the standing for the operation.
	CodeForbidden ErrorCode = "forbidden"
	// CodeTenantForbidden: the key is bound to another tenant.
	CodeTenantForbidden ErrorCode = "tenant_forbidden"
	// CodeTenantDisabled: the tenant is disabled.
	CodeTenantDisabled ErrorCode = "tenant_disabled"
	// CodeNotFound: the resource does not exist (in this tenant).
	CodeNotFound ErrorCode = "not_found"
	// CodeMethodNotAllowed: the path exists but not with this method.
	CodeMethodNotAllowed ErrorCode = "method_not_allowed"
	// CodeConflict: a uniqueness rule refuses the write.
	CodeConflict ErrorCode = "conflict"
	// CodeVersionConflict: the write named a stale version.
	CodeVersionConflict ErrorCode = "version_conflict"
	// CodeKeyRevoked: the API key is revoked and cannot be changed.
	CodeKeyRevoked ErrorCode = "key_revoked"
	// CodeMalformedRequest: the HTTP request itself could not be read (its
	// request line, headers or transfer encoding), before any operation ran.
	CodeMalformedRequest ErrorCode = "malformed_request"
	// CodeHeaderTooLarge: the request line and headers are over the limit.
	CodeHeaderTooLarge ErrorCode = "header_too_large"
	// CodeRequestTimeout: the request body did not arrive within its deadline.
	CodeRequestTimeout ErrorCode = "request_timeout"
	// CodePayloadTooLarge: the request body is over the limit.
	CodePayloadTooLarge ErrorCode = "payload_too_large"
	// CodeUnsupportedMediaType: the body's content type is not accepted.
	CodeUnsupportedMediaType ErrorCode = "unsupported_media_type"
	// CodeRateLimited: the API key or the tenant is over its request rate
	// limit; Retry-After says when to try again.
	CodeRateLimited ErrorCode = "rate_limited"
	// CodeQuotaExceeded: the request would take the tenant past one of its
	// quotas (Error.Quota names it); nothing was stored.
	CodeQuotaExceeded ErrorCode = "quota_exceeded"
	// CodeIdempotencyMismatch: an Idempotency-Key was used with another
	// request within its window.
	CodeIdempotencyMismatch ErrorCode = "idempotency_mismatch"
	// CodeSlotInvalid: session slot values do not fit the tenant's slot
	// definitions (an undefined slot, a value of the wrong type or shape);
	// one field error per slot.
	CodeSlotInvalid ErrorCode = "slot_invalid"
	// CodeDeviceLimit: a share link already binds as many devices as it may.
	CodeDeviceLimit ErrorCode = "device_limit"
	// CodeDeviceMismatch: a share link's device token was used with another
	// device id than the one it was issued to.
	CodeDeviceMismatch ErrorCode = "device_mismatch"
	// CodeShareGone: a share link has expired or was revoked.
	CodeShareGone ErrorCode = "share_gone"
	// CodeHandoffClaimed: another agent already claimed the conversation.
	CodeHandoffClaimed ErrorCode = "handoff_claimed"
	// CodeHandoffState: the conversation is not in the hand-off state the
	// step needs (not waiting, or not with this agent).
	CodeHandoffState ErrorCode = "handoff_state"
	// CodeUnavailable: a dependency (the database) is unreachable or too slow.
	CodeUnavailable ErrorCode = "unavailable"
	// CodeInternal: anything unexpected. Its details go to the log, never to the client.
	CodeInternal ErrorCode = "internal"
)

// FieldError names one field that failed validation.
type FieldError struct {
	// Field is a JSON pointer into the body ("/name") or "query.limit",
	// "path.kbId", "header.X-Tenant-Id".
	Field string
	// Message says what is wrong with it.
	Message string
}

// Error is the service's one error type. Message is safe to show to the
// client; Err, when set, is the cause and is only logged.
type Error struct {
	Code    ErrorCode
	Message string
	Fields  []FieldError
	// Quota, with CodeQuotaExceeded, names the quota and its figures.
	Quota *QuotaExceeded
	Err   error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error with a formatted client-safe message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid builds a validation error naming one field.
func Invalid(field, message string) *Error {
	return &Error{
		Code:    CodeValidation,
		Message: "The request does not pass validation.",
		Fields:  []FieldError{{Field: field, Message: message}},
	}
}

// ErrorCodeOf returns the code of the first *Error in err's chain, or
// CodeInternal when there is none.
func ErrorCodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-safe message of the first *Error in
// err's chain, or a generic sentence when there is none.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
