package qdrant

import (
	"context"
	"errors"
	"fmt"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cs-assistant/assistant/domain"
)

// wrapErr turns an error of a Qdrant call into a *domain.Error:
// CodeUnavailable when Qdrant is unreachable, overloaded or too slow (the
// caller may retry), CodeInternal for anything else, which is a bug or a
// misconfigured collection rather than something a retry mends.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	cause := fmt.Errorf("qdrant %s: %w", op, err)
	if transient(err) {
		return unavailable(cause)
	}
	return &domain.Error{Code: domain.CodeInternal, Message: "The vector store failed.", Err: cause}
}

// unavailable is the error of a call that may succeed when retried.
func unavailable(cause error) *domain.Error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: "The vector store is unavailable; try again later.", Err: cause}
}

// transient reports errors that say Qdrant is down, busy or slow.
func transient(err error) bool {
	var exhausted *qc.QdrantResourceExhaustedError
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.As(err, &exhausted) {
		return true
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.ResourceExhausted, codes.Aborted:
		return true
	}
	return false
}
