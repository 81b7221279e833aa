// Package outbound is the one HTTP client of every call to an address a
// tenant chose (model and embedding providers, later webhooks). Such a call
// must not reach inside the operator's network: the client resolves the
// host itself and refuses, at dial time and for every address it would
// connect to, loopback, private, link-local, multicast, CGNAT (100.64/10),
// unspecified and other non-global addresses, IPv4 and IPv6 alike
// (IPv4-mapped IPv6 addresses count as their IPv4 address). Checking in
// net.Dialer.Control, after DNS, means a name that resolves to a public
// address when it is configured and to 127.0.0.1 when it is called (DNS
// rebinding) gains nothing.
//
// The operator decides what is inside: an AllowList (ASSISTANT_OUTBOUND_ALLOW)
// names internal hosts and networks every tenant may call, and a
// configuration a platform key set is trusted as the operator's own
// (Clients.For(true)). Redirects are never followed. The guarded client
// uses no proxy from the environment (the dial would be to the proxy, not
// to the target); the trusted one keeps HTTPS_PROXY and the like, as
// net/http's default transport does.
package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// RefusedError is the cause of every refused dial: the address is
// internal and nothing allows it. It names the class of the address, not
// the address.
type RefusedError struct {
	// Class is what Class said of the address, e.g. "loopback".
	Class string
}

// Error says why the dial was refused.
func (e *RefusedError) Error() string {
	return "the host resolves to a " + e.Class + " address, which is not allowed"
}

// blocked are the networks a tenant's call may not reach unless allowed
// (read only: a table, never written).
// Each is named in the refusal, without the address itself (a tenant
// admin learns that its URL points inward, not where inside).
var blocked = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "private NAT64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("fc00::/7"), "unique local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Class names the kind of internal address ip is ("loopback", "private",
// …), or "" for a global address a tenant may call. An IPv4-mapped IPv6
// address is judged as its IPv4 address; a NAT64 address (64:ff9b::/96)
// as the IPv4 address it embeds.
func Class(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	if ip.Is6() && netip.MustParsePrefix("64:ff9b::/96").Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if !ip.IsValid() {
		return "invalid"
	}
	for _, b := range blocked {
		if b.prefix.Contains(ip) {
			return b.class
		}
	}
	return ""
}

// AllowList is what the operator allows every tenant to call although it
// is internal: host names or addresses, with or without a port, and
// networks (CIDR).
type AllowList struct {
	hosts []hostPort
	nets  []netip.Prefix
}

// hostPort is one allowed host; port "" allows every port.
type hostPort struct{ host, port string }

// ParseAllowList reads a comma-separated list of host[:port] and CIDR
// entries ("ollama:11434, 10.1.0.0/16, [fd00::5]:8000"). Empty entries
// are skipped; a malformed one is an error naming it.
func ParseAllowList(s string) (AllowList, error) {
	var a AllowList
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if strings.Contains(e, "/") {
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return AllowList{}, fmt.Errorf("%q is not a network such as 10.0.0.0/8", e)
			}
			a.nets = append(a.nets, p.Masked())
			continue
		}
		host, port := e, ""
		if h, p, err := net.SplitHostPort(e); err == nil {
			host, port = h, p
		}
		host = strings.ToLower(strings.Trim(host, "[]"))
		if host == "" || strings.ContainsAny(host, " /?#@[]") || (port != "" && !allDigits(port)) {
			return AllowList{}, fmt.Errorf("%q is not a host[:port] such as ollama:11434", e)
		}
		a.hosts = append(a.hosts, hostPort{host: host, port: port})
	}
	return a, nil
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// String lists the entries as ParseAllowList reads them.
func (a AllowList) String() string {
	var out []string
	for _, h := range a.hosts {
		if h.port == "" {
			out = append(out, h.host)
		} else {
			out = append(out, net.JoinHostPort(h.host, h.port))
		}
	}
	for _, n := range a.nets {
		out = append(out, n.String())
	}
	return strings.Join(out, ",")
}

// Empty reports whether nothing is allowed.
func (a AllowList) Empty() bool { return len(a.hosts) == 0 && len(a.nets) == 0 }

// allowsHost reports whether host:port (as a URL names it, before DNS) is
// allowed by name.
func (a AllowList) allowsHost(host, port string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, h := range a.hosts {
		if h.host == host && (h.port == "" || h.port == port) {
			return true
		}
	}
	return false
}

// allowsAddr reports whether ip:port (a resolved address) is allowed, by a
// network or by an address entry.
func (a AllowList) allowsAddr(ip netip.Addr, port string) bool {
	ip = ip.Unmap().WithZone("")
	for _, n := range a.nets {
		if n.Contains(ip) {
			return true
		}
	}
	return a.allowsHost(ip.String(), port)
}

// Clients hands out the outbound clients: one that guards every dial, and
// one for configurations the operator set (a platform key), which reaches
// internal addresses. Both follow no redirect; only the trusted one uses
// the environment's proxy.
type Clients struct {
	allow   AllowList
	guarded *http.Client
	trusted *http.Client
}

// Wrap lets the caller put its own round tripper (tracing) around the
// transports Clients makes.
type Wrap func(http.RoundTripper) http.RoundTripper

// Options tune the transports.
type Options struct {
	// Allow is the operator's allow list.
	Allow AllowList
	// MaxIdleConnsPerHost and MaxIdleConns are the transports' (0: net/http's).
	MaxIdleConnsPerHost, MaxIdleConns int
	// Wrap, when set, wraps each transport (e.g. in a tracing one).
	Wrap Wrap
}

// dialTimeout bounds connecting to one address.
const dialTimeout = 30 * time.Second

// New returns the clients of opts.
func New(opts Options) *Clients {
	c := &Clients{allow: opts.Allow}
	c.guarded = c.client(opts, true)
	c.trusted = c.client(opts, false)
	return c
}

func (c *Clients) client(opts Options, guard bool) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if guard {
		// Through a proxy the dial would be to the proxy, and the proxy's
		// to the tenant's target, unchecked.
		tr.Proxy = nil
	}
	if opts.MaxIdleConnsPerHost > 0 {
		tr.MaxIdleConnsPerHost = opts.MaxIdleConnsPerHost
	}
	if opts.MaxIdleConns > 0 {
		tr.MaxIdleConns = opts.MaxIdleConns
	}
	plain := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	if guard {
		checked := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: c.control}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err == nil && c.allow.allowsHost(host, port) {
				return plain.DialContext(ctx, network, addr)
			}
			return checked.DialContext(ctx, network, addr)
		}
	} else {
		tr.DialContext = plain.DialContext
	}
	var rt http.RoundTripper = tr
	if opts.Wrap != nil {
		rt = opts.Wrap(tr)
	}
	return &http.Client{Transport: rt, CheckRedirect: noRedirects}
}

// noRedirects hands a redirect back as the answer: a provider's API does
// not redirect, and following one would let the far side pick the next
// address and path.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// control runs after DNS, on each address about to be connected to.
func (c *Clients) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Class: "unreadable"}
	}
	if class := Class(ap.Addr()); class != "" && !c.allow.allowsAddr(ap.Addr(), fmt.Sprint(ap.Port())) {
		return &RefusedError{Class: class}
	}
	return nil
}

// For returns the client of a configuration: the guarded one, or with
// trusted (set by a platform key) the one that reaches internal addresses.
func (c *Clients) For(trusted bool) *http.Client {
	if trusted {
		return c.trusted
	}
	return c.guarded
}

// CheckBaseURL is the check of a base URL when it is configured, before
// any call: a tenant (not trusted) may not name an internal address
// literally (an IP address in a blocked network, "localhost" or a name
// under .localhost) unless the allow list allows it. Names are checked
// when they are dialled. It returns a CodeValidation error on field, or
// nil; the message never repeats the URL.
func (c *Clients) CheckBaseURL(raw string, trusted bool, field string) error {
	if trusted || raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil // the URL's own checks say what is wrong
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if c.allow.allowsHost(host, port) {
		return nil
	}
	class := ""
	if ip, err := netip.ParseAddr(host); err == nil {
		if class = Class(ip); class != "" && c.allow.allowsAddr(ip, port) {
			class = ""
		}
	} else if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		class = "loopback"
	}
	if class == "" {
		return nil
	}
	return &domain.Error{Code: domain.CodeValidation, Message: "The base URL points to an internal address.",
		Fields: []domain.FieldError{{Field: field, Message: "must not point to a " + class + " address; the operator may allow it (ASSISTANT_OUTBOUND_ALLOW)"}}}
}
