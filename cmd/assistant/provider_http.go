package main

import "net/http"

// providerIdleConns is how many idle connections the service keeps open
// to one model or embedding provider host, and providerIdleTotal to all
// of them together.
const (
	providerIdleConns = 256
	providerIdleTotal = 1024
)

// providerTransport is the transport of the calls to model and embedding
// providers: http.DefaultTransport's, keeping up to providerIdleConns idle
// connections per host instead of its 2. A tenant's calls go to one host,
// so with the default every generation beyond the second that ran at once
// closed its connection when it ended, and the next one dialled again (and
// against a real provider made a new TLS handshake).
func providerTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = providerIdleConns
	tr.MaxIdleConns = providerIdleTotal
	return tr
}
