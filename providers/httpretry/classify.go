package httpretry

import (
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/cs-assistant/assistant/internal/outbound"
)

// RetryableStatus reports whether an answer with this status may succeed
// if sent again: throttling (429), a request the server timed out (408),
// and the server-side failures that are usually transient. Other 4xx are
// refusals and 501/505 are permanent.
func RetryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// RetryableError reports whether a transport error is a timeout or a
// connection failure (refused, reset, closed before an answer). TLS
// certificate errors, bad URLs and the like are not: another attempt
// would fail the same way. The caller's own cancellation must be checked
// before this, since it is a context error, not a connection failure.
func RetryableError(err error) bool {
	var ne net.Error
	var refused *outbound.RefusedError
	switch {
	case err == nil, errors.As(err, &refused):
		// A dial the outbound client refused is refused again.
		return false
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &ne):
		// *net.OpError (dial, read, write) and *net.DNSError land here.
		var op *net.OpError
		return ne.Timeout() || errors.As(err, &op)
	}
	return false
}
