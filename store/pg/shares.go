package pg

import (
	"context"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const (
	shareNotFound       = "Share link not found."
	shareDeviceNotFound = "This device token was not issued by this share link; bind the device first."
)

var _ domain.ShareStore = (*Store)(nil)

// CreateShare implements domain.ShareStore.
func (s *Store) CreateShare(ctx context.Context, in domain.NewShare) (domain.Share, error) {
	sh := in.Share
	row, err := s.q.CreateShareLink(ctx, db.CreateShareLinkParams{
		ID: sh.ID, TenantID: string(sh.TenantID), SessionID: sh.SessionID, TokenHash: in.TokenHash,
		MaxDevices: int32(sh.MaxDevices), CreatedBy: sh.CreatedBy, CreatedAt: sh.CreatedAt.UTC(), ExpiresAt: sh.ExpiresAt.UTC(),
	})
	if err != nil {
		return domain.Share{}, mapError(err, shareNotFound)
	}
	return shareFromRow(row), nil
}

// GetShare implements domain.ShareStore.
func (s *Store) GetShare(ctx context.Context, tenant domain.TenantID, id string) (domain.Share, error) {
	row, err := s.q.GetShareLink(ctx, db.GetShareLinkParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.Share{}, mapError(err, shareNotFound)
	}
	return s.withDevices(ctx, tenant, shareFromRow(row))
}

// ListShares implements domain.ShareStore: newest first, each with its
// devices (one more query for the whole page).
func (s *Store) ListShares(ctx context.Context, tenant domain.TenantID, f domain.ShareFilter, p domain.PageRequest) (domain.Page[domain.Share], error) {
	rows, err := s.q.ListShareLinks(ctx, db.ListShareLinksParams{
		TenantID: string(tenant), SessionID: f.SessionID, Active: f.Active, Now: f.Now, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.Share]{}, mapError(err, "")
	}
	page := domain.PageOf(sharesFromRows(rows), p, func(sh domain.Share) string { return sh.ID })
	if err := s.attachDevices(ctx, tenant, page.Items); err != nil {
		return domain.Page[domain.Share]{}, err
	}
	return page, nil
}

// RevokeShare implements domain.ShareStore.
func (s *Store) RevokeShare(ctx context.Context, tenant domain.TenantID, id string, at time.Time) (domain.Share, error) {
	row, err := s.q.RevokeShareLink(ctx, db.RevokeShareLinkParams{TenantID: string(tenant), ID: id, RevokedAt: &at})
	if err != nil {
		return domain.Share{}, mapError(err, shareNotFound)
	}
	return s.withDevices(ctx, tenant, shareFromRow(row))
}

// ShareByTokenHash implements domain.ShareStore. The link comes without
// its devices: the public page does not show them.
func (s *Store) ShareByTokenHash(ctx context.Context, hash []byte) (domain.Share, domain.TenantStatus, error) {
	r, err := s.q.ShareLinkByTokenHash(ctx, hash)
	if err != nil {
		return domain.Share{}, "", mapError(err, shareNotFound)
	}
	sh := shareFromRow(db.ShareLink{ID: r.ID, TenantID: r.TenantID, SessionID: r.SessionID, MaxDevices: r.MaxDevices,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt})
	return sh, domain.TenantStatus(r.TenantStatus), nil
}

// BindShareDevice implements domain.ShareStore: under the link's row lock,
// so that a revoke and concurrent bindings are seen in one order and the
// device limit holds.
func (s *Store) BindShareDevice(ctx context.Context, d domain.NewShareDevice) (domain.ShareDevice, error) {
	var out domain.ShareDevice
	err := s.inTx(ctx, func(q *db.Queries) error {
		link, err := q.LockShareLink(ctx, db.LockShareLinkParams{TenantID: string(d.Tenant), ID: d.ShareID})
		if err != nil {
			return err
		}
		sh := shareFromRow(link)
		if err := sh.Gone(d.BoundAt); err != nil {
			return err
		}
		bound, err := q.ListShareDevices(ctx, db.ListShareDevicesParams{TenantID: string(d.Tenant), ShareIds: []string{d.ShareID}})
		if err != nil {
			return err
		}
		if slices.ContainsFunc(bound, func(b db.ShareDevice) bool { return b.DeviceID == d.DeviceID }) {
			return domain.Errorf(domain.CodeConflict, "This device is bound to the share link already; read the page with its device token.")
		}
		if len(bound) >= sh.MaxDevices {
			return domain.Errorf(domain.CodeDeviceLimit, "This share link is open to at most %d devices, and that many are bound.", sh.MaxDevices)
		}
		row, err := q.InsertShareDevice(ctx, db.InsertShareDeviceParams{
			TenantID: string(d.Tenant), ShareID: d.ShareID, DeviceID: d.DeviceID, TokenHash: d.TokenHash, BoundAt: d.BoundAt.UTC(),
		})
		out = shareDeviceFromRow(row)
		return err
	})
	if err != nil {
		return domain.ShareDevice{}, mapError(err, shareNotFound)
	}
	return out, nil
}

// ShareDeviceByTokenHash implements domain.ShareStore.
func (s *Store) ShareDeviceByTokenHash(ctx context.Context, tenant domain.TenantID, shareID string, hash []byte) (domain.ShareDevice, error) {
	row, err := s.q.ShareDeviceByTokenHash(ctx, db.ShareDeviceByTokenHashParams{TenantID: string(tenant), ShareID: shareID, TokenHash: hash})
	if err != nil {
		return domain.ShareDevice{}, mapError(err, shareDeviceNotFound)
	}
	return shareDeviceFromRow(row), nil
}

// withDevices is one link with its devices.
func (s *Store) withDevices(ctx context.Context, tenant domain.TenantID, sh domain.Share) (domain.Share, error) {
	one := []domain.Share{sh}
	err := s.attachDevices(ctx, tenant, one)
	return one[0], err
}

// attachDevices fills in the devices of links of one tenant.
func (s *Store) attachDevices(ctx context.Context, tenant domain.TenantID, shares []domain.Share) error {
	if len(shares) == 0 {
		return nil
	}
	ids := make([]string, len(shares))
	at := make(map[string]int, len(shares))
	for i, sh := range shares {
		ids[i], at[sh.ID] = sh.ID, i
		shares[i].Devices = []domain.ShareDevice{}
	}
	rows, err := s.q.ListShareDevices(ctx, db.ListShareDevicesParams{TenantID: string(tenant), ShareIds: ids})
	if err != nil {
		return mapError(err, "")
	}
	for _, r := range rows {
		i := at[r.ShareID]
		shares[i].Devices = append(shares[i].Devices, shareDeviceFromRow(r))
	}
	return nil
}

func sharesFromRows(rows []db.ShareLink) []domain.Share {
	out := make([]domain.Share, len(rows))
	for i, r := range rows {
		out[i] = shareFromRow(r)
	}
	return out
}

func shareFromRow(r db.ShareLink) domain.Share {
	return domain.Share{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), SessionID: r.SessionID, MaxDevices: int(r.MaxDevices),
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), RevokedAt: utcPtr(r.RevokedAt),
	}
}

func shareDeviceFromRow(r db.ShareDevice) domain.ShareDevice {
	return domain.ShareDevice{DeviceID: r.DeviceID, BoundAt: r.BoundAt.UTC()}
}
