package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"

	"github.com/labstack/echo/v4"
)

// publicRateChecks are the buckets of a public (share-page) operation,
// which has no key or tenant: its share link's, named by a hash of the
// token (so no token is held in memory), and its client address's.
//
// The client address is the connection's peer: X-Forwarded-For is not
// trusted, since any client can send one. Behind a reverse proxy every
// request then comes from the proxy's address, and the per-address limit
// is one bucket for all clients; raise it, or set it to 0, there.
func (s *Server) publicRateChecks(c echo.Context) []rateCheck {
	var checks []rateCheck
	if n, token := s.rateLimits.PerShare, c.Param(shareTokenParam); n > 0 && token != "" {
		h := sha256.Sum256([]byte(token))
		checks = append(checks, rateCheck{id: "s:" + hex.EncodeToString(h[:16]), perMinute: n})
	}
	if n := s.rateLimits.PerAddress; n > 0 {
		checks = append(checks, rateCheck{id: "a:" + clientAddress(c.Request()), perMinute: n})
	}
	return checks
}

// shareTokenParam is the path parameter that holds a share link's token.
const shareTokenParam = "shareToken"

// clientAddress is the IP address of the request's connection; an IPv6
// address counts by its /64, the block one client usually holds.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.To4() != nil:
		return ip.String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// rateSubject names what a bucket id limits, for the 429's message.
func rateSubject(id string) string {
	switch id[0] {
	case 't':
		return "This tenant"
	case 's':
		return "This share link"
	case 'a':
		return "This client address"
	}
	return "This API key"
}
