package pg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cs-assistant/assistant/domain"
)

// PostgreSQL error codes mapped below (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgCheckViolation      = "23514"
	pgNotNullViolation    = "23502"
	pgStringTooLong       = "22001"
	pgInvalidText         = "22P02"
	// Values PostgreSQL cannot hold, which the server's checks should have
	// refused already: a byte sequence not in UTF-8 (or NUL), a number or
	// a time out of range, a value too large for its index.
	pgCharacterNotInRepertoire = "22021"
	pgNumericOutOfRange        = "22003"
	pgDatetimeOutOfRange       = "22008"
	pgInvalidDatetimeFormat    = "22007"
	pgProgramLimitExceeded     = "54000"
	// The server is going away or not there yet: a fast or immediate
	// shutdown ends every session with 57P01 or 57P02, a starting or
	// stopping server refuses connections with 57P03, and a full server
	// with 53300. Connections the pool kept idle through a restart report
	// 57P01 on their next query.
	pgAdminShutdown      = "57P01"
	pgCrashShutdown      = "57P02"
	pgCannotConnectNow   = "57P03"
	pgTooManyConnections = "53300"
	// pgConnectionClass is SQLSTATE class 08, connection exceptions.
	pgConnectionClass = "08"
)

// mapError is the one place where driver errors become domain errors, so no
// pgx error or SQL text ever reaches a handler. notFound is the client-safe
// message for pgx.ErrNoRows.
func mapError(err error, notFound string) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return &domain.Error{Code: domain.CodeNotFound, Message: notFound}
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case pgUniqueViolation:
			return &domain.Error{Code: domain.CodeConflict, Message: "A resource with the same unique value already exists.", Err: err}
		case pgForeignKeyViolation:
			return &domain.Error{Code: domain.CodeValidation, Message: "The request refers to a resource that does not exist.", Err: err}
		case pgCheckViolation, pgNotNullViolation, pgStringTooLong, pgInvalidText:
			return &domain.Error{Code: domain.CodeValidation, Message: "A value is out of the allowed range.", Err: err}
		case pgCharacterNotInRepertoire, pgNumericOutOfRange, pgDatetimeOutOfRange, pgInvalidDatetimeFormat, pgProgramLimitExceeded:
			return &domain.Error{Code: domain.CodeValidation, Message: "A value cannot be stored (its text, number, time or size).", Err: err}
		case pgAdminShutdown, pgCrashShutdown, pgCannotConnectNow, pgTooManyConnections:
			return unavailable(err)
		}
		if strings.HasPrefix(pgErr.Code, pgConnectionClass) {
			return unavailable(err)
		}
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &connErr) ||
		errors.As(err, &netErr) || pgconn.SafeToRetry(err) {
		return unavailable(err)
	}
	return &domain.Error{Code: domain.CodeInternal, Message: "internal error", Err: err}
}

// missingParent is CodeNotFound with message when err breaks a foreign key
// whose constraint name ends in suffix (the row it refers to is gone), and
// nil otherwise.
func missingParent(err error, suffix, message string) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgForeignKeyViolation && strings.HasSuffix(pgErr.ConstraintName, suffix) {
		return &domain.Error{Code: domain.CodeNotFound, Message: message, Err: err}
	}
	return nil
}

// unavailable is a database that cannot answer now (down, restarting,
// unreachable, full): the client may retry shortly.
func unavailable(err error) *domain.Error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: "The database is unavailable; retry shortly.", Err: err}
}

// decodeStored decodes JSON the store wrote itself into v. A failure means
// the row was changed behind the store's back: it is an internal error
// naming the row (the server logs it and answers 500 internal), never a
// silently empty value.
func decodeStored(b []byte, v any, what, id string) error {
	if err := json.Unmarshal(b, v); err != nil {
		return &domain.Error{Code: domain.CodeInternal, Message: fmt.Sprintf("The stored %s %s cannot be read.", what, id), Err: err}
	}
	return nil
}
