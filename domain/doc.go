// Package domain holds the plain types of the assistant, its one error
// vocabulary, and the interfaces the rest of the service depends on.
//
// It imports only the standard library and does no I/O: storage, HTTP and
// model clients are adapters around it.
package domain
