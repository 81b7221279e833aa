package domain

import (
	"context"
	"time"
)

// PrefixShare is the prefix of share link ids.
const PrefixShare = "shr_"

// Share link limits, as documented in the contract.
const (
	DefaultShareTTL        = 7 * 24 * time.Hour
	MinShareTTL            = time.Minute
	MaxShareTTL            = 90 * 24 * time.Hour
	DefaultShareMaxDevices = 2
	MaxShareMaxDevices     = 10
)

// Share is a link that opens one session's dialogue page, without an API
// key, to at most MaxDevices devices until it expires or is revoked. Its
// token is never kept, only the token's hash.
type Share struct {
	ID        string
	TenantID  TenantID
	SessionID string
	// MaxDevices is how many devices may bind to the link.
	MaxDevices int
	// Devices are the devices bound so far, oldest first.
	Devices []ShareDevice
	// CreatedBy is the id of the API key that made the link.
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// Active reports whether the link is open at now: neither revoked nor
// expired.
func (s Share) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt)
}

// Gone returns CodeShareGone when the link is not open at now, else nil.
func (s Share) Gone(now time.Time) error {
	switch {
	case s.RevokedAt != nil:
		return Errorf(CodeShareGone, "This share link was revoked.")
	case !now.Before(s.ExpiresAt):
		return Errorf(CodeShareGone, "This share link has expired.")
	}
	return nil
}

// ShareDevice is one device bound to a share link.
type ShareDevice struct {
	// DeviceID is the client's own id of the device.
	DeviceID string
	BoundAt  time.Time
}

// NewShare is what the store needs to insert a share link.
type NewShare struct {
	Share     Share
	TokenHash []byte
}

// NewShareDevice is what the store needs to bind a device.
type NewShareDevice struct {
	Tenant    TenantID
	ShareID   string
	DeviceID  string
	TokenHash []byte
	BoundAt   time.Time
}

// ShareFilter narrows a listing of share links.
type ShareFilter struct {
	SessionID *string
	// Active, when set, keeps the links open at Now (true) or the closed
	// ones (false).
	Active *bool
	Now    time.Time
}

// ShareStore keeps share links and their devices. Every method but
// ShareByTokenHash acts in one tenant.
type ShareStore interface {
	// CreateShare inserts the link.
	CreateShare(ctx context.Context, s NewShare) (Share, error)
	// GetShare returns CodeNotFound if the link is not in the tenant.
	GetShare(ctx context.Context, tenant TenantID, id string) (Share, error)
	// ListShares lists links newest first.
	ListShares(ctx context.Context, tenant TenantID, f ShareFilter, p PageRequest) (Page[Share], error)
	// RevokeShare closes the link at at (a revoked link keeps its first
	// revocation). Returns CodeNotFound if the link is not in the tenant.
	RevokeShare(ctx context.Context, tenant TenantID, id string, at time.Time) (Share, error)
	// ShareByTokenHash finds a link by its token's hash in any tenant, with
	// the tenant's status. Returns CodeNotFound when no link has it.
	ShareByTokenHash(ctx context.Context, hash []byte) (Share, TenantStatus, error)
	// BindShareDevice binds a device while the link is open at d.BoundAt,
	// one binding of a link at a time: CodeShareGone when the link is
	// closed, CodeConflict when the device is bound already, CodeDeviceLimit
	// when the link binds MaxDevices devices already.
	BindShareDevice(ctx context.Context, d NewShareDevice) (ShareDevice, error)
	// ShareDeviceByTokenHash returns the device of the link that holds the
	// device token with this hash; CodeNotFound when none does.
	ShareDeviceByTokenHash(ctx context.Context, tenant TenantID, shareID string, hash []byte) (ShareDevice, error)
}
