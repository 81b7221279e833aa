package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/clients/go"
)

// service is the API of the service under load, acting in one tenant.
type service struct {
	api    *client.ClientWithResponses
	http   *http.Client
	root   string
	tenant string
}

// newService is the API at root (the service's root URL) with key, its
// connection pool sized for conns requests at once.
func newService(root, key, tenant string, conns int) (*service, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 0 // no limit across hosts
	tr.MaxIdleConnsPerHost = conns
	hc := &http.Client{Transport: tr} // streams have their own deadlines
	root = strings.TrimRight(root, "/")
	api, err := client.NewClientWithResponses(root+"/api/v1", client.WithAPIKey(key), client.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	return &service{api: api, http: hc, root: root, tenant: tenant}, nil
}

// close drops the idle connections.
func (s *service) close() { s.http.CloseIdleConnections() }

// ready fails unless the service answers /readyz with 200.
func (s *service) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.root+"/readyz", nil)
	if err != nil {
		return err
	}
	res, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("the service at %s does not answer (is make run running?): %w", s.root, err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the service at %s is not ready: /readyz answered %s", s.root, res.Status)
	}
	return nil
}

// Rate limits and the quota of open streams per key the load tool gives
// its tenant: the highest the contract allows, so that only the service's
// capacity limits the load (every customer streams with the one key).
const (
	raisedPerKey    = 1_000_000
	raisedPerTenant = 10_000_000
	raisedStreams   = 1_000_000
)

// prepareTenant creates the tenant when it is missing (a tenant-scoped
// call does) and, with raise, lifts its rate limits and its quota of open
// streams per key. It returns a line saying which limits apply.
func (s *service) prepareTenant(ctx context.Context, raise bool) (string, error) {
	r, err := s.api.ListKnowledgeBasesWithResponse(ctx, &client.ListKnowledgeBasesParams{XTenantId: s.tenant, Limit: ptr[client.Limit](1)})
	if err := expect(r, err, http.StatusOK, "list knowledge bases"); err != nil {
		return "", err
	}
	if !raise {
		return "left as they are (-raise-limits=false)", nil
	}
	up, err := s.api.UpdateTenantWithResponse(ctx, s.tenant, client.TenantUpdateRequest{RateLimits: &client.TenantRateLimits{
		PerKeyPerMinute: ptr(int32(raisedPerKey)), PerTenantPerMinute: ptr(int32(raisedPerTenant))},
		Quotas: &client.TenantQuotas{StreamsPerKey: ptr(int64(raisedStreams))}})
	if err == nil && up.StatusCode() == http.StatusForbidden {
		return "NOT raised: the key is not a platform key, so expect 429s; use the default key of make run, " +
			"or start the service with ASSISTANT_RATE_LIMIT_PER_KEY=0 ASSISTANT_RATE_LIMIT_PER_TENANT=0 ASSISTANT_QUOTA_STREAMS_PER_KEY=0", nil
	}
	if err := expect(up, err, http.StatusOK, "raise the tenant's rate limits"); err != nil {
		return "", err
	}
	l := up.JSON200.RateLimits
	streams := "the default"
	if v := up.JSON200.Quotas.StreamsPerKey; v != nil {
		streams = fmt.Sprint(*v)
	}
	return fmt.Sprintf("raised to %s per key and %s per tenant a minute, %s open streams per key",
		limit(l.PerKeyPerMinute), limit(l.PerTenantPerMinute), streams), nil
}

// limit prints a rate limit; nil is the service's default.
func limit(v *int32) string {
	if v == nil {
		return "the default"
	}
	return fmt.Sprint(*v)
}

// response is what every generated response has.
type response interface{ StatusCode() int }

// expect turns a call's outcome into an error unless it answered want.
// r is only looked at when err is nil.
func expect(r interface {
	response
	GetBody() []byte
}, err error, want int, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if r.StatusCode() == want {
		return nil
	}
	return fmt.Errorf("%s: %s", what, problemText(r.StatusCode(), r.GetBody()))
}

// problemText describes a refused request from its problem body.
func problemText(status int, body []byte) string {
	if p, ok := decodeProblem(body); ok {
		return fmt.Sprintf("HTTP %d %s: %s", status, p.Code, p.Detail)
	}
	return fmt.Sprintf("HTTP %d", status)
}

// decodeProblem reads a problem (RFC 9457) body.
func decodeProblem(body []byte) (client.Problem, bool) {
	var p client.Problem
	return p, json.Unmarshal(body, &p) == nil && p.Code != ""
}

func ptr[T any](v T) *T { return &v }
