// Package sharing is share links: a session's dialogue page opened,
// without an API key, to the few devices that bind themselves to the link,
// until it expires or is revoked. Link and device tokens are random, shown
// once and kept only as hashes. Nothing is cached: every public request
// reads the link from the database, so a revoke applies at once on every
// replica.
package sharing

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Sessions is what sharing needs of the chat store.
type Sessions interface {
	// GetSession returns CodeNotFound if the session is not in tenant.
	GetSession(ctx context.Context, tenant domain.TenantID, id string) (domain.ChatSession, error)
	// ListMessages pages a session's messages oldest first.
	ListMessages(ctx context.Context, tenant domain.TenantID, sessionID string, p domain.PageRequest) (domain.Page[domain.SessionMessage], error)
}

// Settings gives a tenant's settings, for its share-link base URL.
type Settings interface {
	GetSettings(ctx context.Context, tenant domain.TenantID) (domain.TenantSettings, error)
}

// Service makes, lists and revokes share links, binds devices to them and
// opens their pages.
type Service struct {
	store    domain.ShareStore
	sessions Sessions
	settings Settings
	// base is the share-link base of tenants that set none.
	base string
	now  func() time.Time
}

// New returns the service; defaultBase is the service's FRONTEND_BASE_URL.
func New(store domain.ShareStore, sessions Sessions, settings Settings, defaultBase string) *Service {
	return &Service{store: store, sessions: sessions, settings: settings, base: defaultBase, now: time.Now}
}

// CreateInput asks for a share link of a session.
type CreateInput struct {
	Tenant    domain.TenantID
	SessionID string
	// CreatedBy is the id of the API key asking.
	CreatedBy string
	// TTL and MaxDevices: zero takes the default.
	TTL        time.Duration
	MaxDevices int
}

// Created is a new link with its one-time token and URL.
type Created struct {
	Share domain.Share
	Token string
	URL   string
}

// Create makes a share link of the session. Returns CodeNotFound if the
// session is not in the tenant, CodeValidation for a TTL or device count
// out of range.
func (s *Service) Create(ctx context.Context, in CreateInput) (Created, error) {
	ttl, maxDevices := in.TTL, in.MaxDevices
	if ttl == 0 {
		ttl = domain.DefaultShareTTL
	}
	if maxDevices == 0 {
		maxDevices = domain.DefaultShareMaxDevices
	}
	if ttl < domain.MinShareTTL || ttl > domain.MaxShareTTL {
		return Created{}, domain.Invalid("/expiresInSeconds", fmt.Sprintf("must be %d to %d seconds", int(domain.MinShareTTL.Seconds()), int(domain.MaxShareTTL.Seconds())))
	}
	if maxDevices < 1 || maxDevices > domain.MaxShareMaxDevices {
		return Created{}, domain.Invalid("/maxDevices", fmt.Sprintf("must be 1 to %d", domain.MaxShareMaxDevices))
	}
	if _, err := s.sessions.GetSession(ctx, in.Tenant, in.SessionID); err != nil {
		return Created{}, err
	}
	token := newToken(shareTokenPrefix)
	url, err := s.url(ctx, in.Tenant, token)
	if err != nil {
		return Created{}, err
	}
	now := s.now()
	sh, err := s.store.CreateShare(ctx, domain.NewShare{TokenHash: hashToken(token), Share: domain.Share{
		ID: domain.NewID(domain.PrefixShare), TenantID: in.Tenant, SessionID: in.SessionID, MaxDevices: maxDevices,
		CreatedBy: in.CreatedBy, CreatedAt: now, ExpiresAt: now.Add(ttl),
	}})
	if err != nil {
		return Created{}, err
	}
	return Created{Share: sh, Token: token, URL: url}, nil
}

// url is the page's address: the tenant's frontend_base_url, else the
// service's, then /share/ and the token.
func (s *Service) url(ctx context.Context, tenant domain.TenantID, token string) (string, error) {
	st, err := s.settings.GetSettings(ctx, tenant)
	if err != nil {
		return "", err
	}
	base := s.base
	if st.FrontendBaseURL != nil && *st.FrontendBaseURL != "" {
		base = *st.FrontendBaseURL
	}
	return strings.TrimRight(base, "/") + "/share/" + token, nil
}

// Get returns a link of the tenant with its devices.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.Share, error) {
	return s.store.GetShare(ctx, tenant, id)
}

// List lists the tenant's links newest first; f.Now is set here.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, f domain.ShareFilter, p domain.PageRequest) (domain.Page[domain.Share], error) {
	f.Now = s.now()
	return s.store.ListShares(ctx, tenant, f, p)
}

// Revoke closes a link now; revoking a revoked link changes nothing.
func (s *Service) Revoke(ctx context.Context, tenant domain.TenantID, id string) error {
	_, err := s.store.RevokeShare(ctx, tenant, id, s.now())
	return err
}

// Binding is a device bound to a link, with its one-time device token.
type Binding struct {
	Device domain.ShareDevice
	Token  string
	// ExpiresAt is when the link, and so the binding, expires.
	ExpiresAt time.Time
}

// Bind binds a device to the link of token: see open for the link's
// errors, and domain.ShareStore.BindShareDevice for the binding's.
func (s *Service) Bind(ctx context.Context, token, deviceID string) (Binding, error) {
	sh, err := s.open(ctx, token)
	if err != nil {
		return Binding{}, err
	}
	deviceToken := newToken(deviceTokenPrefix)
	d, err := s.store.BindShareDevice(ctx, domain.NewShareDevice{
		Tenant: sh.TenantID, ShareID: sh.ID, DeviceID: deviceID, TokenHash: hashToken(deviceToken), BoundAt: s.now(),
	})
	if err != nil {
		return Binding{}, err
	}
	return Binding{Device: d, Token: deviceToken, ExpiresAt: sh.ExpiresAt}, nil
}

// Page is what a bound device sees: the link and a page of its session's
// messages, oldest first.
type Page struct {
	Share    domain.Share
	Messages domain.Page[domain.SessionMessage]
}

// Read opens the link of token for a bound device: CodeForbidden when the
// link issued no such device token, CodeDeviceMismatch when it issued it
// to another device; see open for the link's errors.
func (s *Service) Read(ctx context.Context, token, deviceID, deviceToken string, p domain.PageRequest) (Page, error) {
	sh, err := s.open(ctx, token)
	if err != nil {
		return Page{}, err
	}
	d, err := s.store.ShareDeviceByTokenHash(ctx, sh.TenantID, sh.ID, hashToken(deviceToken))
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return Page{}, domain.Errorf(domain.CodeForbidden, "This device token was not issued by this share link; bind the device first.")
	}
	if err != nil {
		return Page{}, err
	}
	if subtle.ConstantTimeCompare([]byte(d.DeviceID), []byte(deviceID)) != 1 {
		return Page{}, domain.Errorf(domain.CodeDeviceMismatch, "This device token was issued to another device.")
	}
	msgs, err := s.sessions.ListMessages(ctx, sh.TenantID, sh.SessionID, p)
	if err != nil {
		return Page{}, err
	}
	return Page{Share: sh, Messages: msgs}, nil
}

// open finds the link of a token, read from the database (never cached, so
// a revoke on any replica applies here at once): CodeNotFound when no link
// has the token, CodeTenantDisabled when its tenant is disabled,
// CodeShareGone when it has expired or was revoked.
func (s *Service) open(ctx context.Context, token string) (domain.Share, error) {
	sh, status, err := s.store.ShareByTokenHash(ctx, hashToken(token))
	if err != nil {
		return domain.Share{}, err
	}
	if status == domain.TenantDisabled {
		return domain.Share{}, domain.Errorf(domain.CodeTenantDisabled, "The tenant of this share link is disabled.")
	}
	if err := sh.Gone(s.now()); err != nil {
		return domain.Share{}, err
	}
	return sh, nil
}
