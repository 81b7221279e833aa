package pg

import (
	"context"
	"encoding/json"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// Compile-time check that Store keeps decomposition templates.
var _ domain.DecompositionStore = (*Store)(nil)

const (
	dtNotFound        = "Decomposition template not found."
	dtVersionNotFound = "Decomposition template version not found."
)

// decompositionTargetJSON is a target as stored in
// decomposition_template_versions.targets.
type decompositionTargetJSON struct {
	Kind        string   `json:"kind"`
	Key         string   `json:"key"`
	Description string   `json:"description,omitempty"`
	Examples    []string `json:"examples,omitempty"`
}

// CreateDecompositionTemplate implements domain.DecompositionStore.
func (s *Store) CreateDecompositionTemplate(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error) {
	var out domain.DecompositionTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := s.withinQuotas(ctx, q, t.TenantID, lockDecomposition, "", adding(domain.QuotaDecompositionTemplates, 1)); err != nil {
			return err
		}
		if _, err := q.CreateDecompositionTemplate(ctx, db.CreateDecompositionTemplateParams{
			ID: t.ID, TenantID: string(t.TenantID), Name: t.Name, Description: t.Description,
		}); err != nil {
			return err
		}
		if err := insertDecompositionVersion(ctx, q, t.TenantID, t.ID, 1, t.Content); err != nil {
			return err
		}
		var err error
		out, err = getDecompositionTemplate(ctx, q, t.TenantID, t.ID)
		return err
	})
	if err != nil {
		return domain.DecompositionTemplate{}, dtNameConflict(mapError(err, dtNotFound))
	}
	return out, nil
}

// GetDecompositionTemplate implements domain.DecompositionStore.
func (s *Store) GetDecompositionTemplate(ctx context.Context, tenant domain.TenantID, id string) (domain.DecompositionTemplate, error) {
	t, err := getDecompositionTemplate(ctx, s.q, tenant, id)
	if err != nil {
		return domain.DecompositionTemplate{}, mapError(err, dtNotFound)
	}
	return t, nil
}

// ListDecompositionTemplates implements domain.DecompositionStore.
func (s *Store) ListDecompositionTemplates(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.DecompositionTemplate], error) {
	rows, err := s.q.ListDecompositionTemplates(ctx, db.ListDecompositionTemplatesParams{
		TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.DecompositionTemplate]{}, mapError(err, "")
	}
	items := make([]domain.DecompositionTemplate, len(rows))
	for i, r := range rows {
		if items[i], err = decompositionTemplateFromRow(db.GetDecompositionTemplateRow(r)); err != nil {
			return domain.Page[domain.DecompositionTemplate]{}, mapError(err, "")
		}
	}
	return domain.PageOf(items, p, func(t domain.DecompositionTemplate) string { return t.ID }), nil
}

// UpdateDecompositionTemplate implements domain.DecompositionStore: a
// changed content becomes a new version (versioned.save).
func (s *Store) UpdateDecompositionTemplate(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error) {
	var out domain.DecompositionTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		latest, err := decompositionVersioned(ctx, q, t.TenantID, t.ID).save(t.Version, t.Content)
		if err != nil {
			return err
		}
		if err := q.UpdateDecompositionTemplate(ctx, db.UpdateDecompositionTemplateParams{
			TenantID: string(t.TenantID), ID: t.ID, Name: t.Name, Description: t.Description, LatestVersion: latest,
		}); err != nil {
			return err
		}
		out, err = getDecompositionTemplate(ctx, q, t.TenantID, t.ID)
		return err
	})
	if err != nil {
		return domain.DecompositionTemplate{}, dtNameConflict(mapError(err, dtNotFound))
	}
	return out, nil
}

// DeleteDecompositionTemplate implements domain.DecompositionStore.
// Versions and the active row go with it (ON DELETE CASCADE).
func (s *Store) DeleteDecompositionTemplate(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteDecompositionTemplate(ctx, db.DeleteDecompositionTemplateParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, dtNotFound)
		}
		return notifyConfig(ctx, q, domain.ConfigDecomposition, tenant)
	})
	return mapError(err, dtNotFound)
}

// ListDecompositionVersions implements domain.DecompositionStore.
func (s *Store) ListDecompositionVersions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.DecompositionVersion], error) {
	before, err := domain.VersionCursor(p)
	if err != nil {
		return domain.Page[domain.DecompositionVersion]{}, err
	}
	exists, err := s.q.DecompositionTemplateExists(ctx, db.DecompositionTemplateExistsParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.Page[domain.DecompositionVersion]{}, mapError(err, "")
	}
	if !exists {
		return domain.Page[domain.DecompositionVersion]{}, domain.Errorf(domain.CodeNotFound, dtNotFound)
	}
	rows, err := s.q.ListDecompositionVersions(ctx, db.ListDecompositionVersionsParams{
		TenantID: string(tenant), TemplateID: id, Before: int32(before), Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.DecompositionVersion]{}, mapError(err, "")
	}
	items := make([]domain.DecompositionVersion, len(rows))
	for i, r := range rows {
		if items[i], err = decompositionVersionFromRow(db.GetDecompositionVersionRow(r)); err != nil {
			return domain.Page[domain.DecompositionVersion]{}, mapError(err, "")
		}
	}
	return domain.VersionPage(items, p, func(v domain.DecompositionVersion) int { return v.Version }), nil
}

// GetDecompositionVersion implements domain.DecompositionStore.
func (s *Store) GetDecompositionVersion(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionVersion, error) {
	row, err := s.q.GetDecompositionVersion(ctx, db.GetDecompositionVersionParams{TenantID: string(tenant), TemplateID: id, Version: int32(version)})
	if err != nil {
		return domain.DecompositionVersion{}, mapError(err, dtVersionNotFound)
	}
	v, err := decompositionVersionFromRow(row)
	return v, mapError(err, "")
}

// PublishDecompositionVersion implements domain.DecompositionStore: in
// one transaction the version becomes the published one, the template the
// tenant's active one, and the replicas are told to drop their cache.
func (s *Store) PublishDecompositionVersion(ctx context.Context, tenant domain.TenantID, id string, version int, rollback bool) (domain.DecompositionTemplate, error) {
	var out domain.DecompositionTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := decompositionVersioned(ctx, q, tenant, id).checkPublish(version, rollback); err != nil {
			return err
		}
		if _, err := q.MarkDecompositionVersionPublished(ctx, db.MarkDecompositionVersionPublishedParams{
			TenantID: string(tenant), TemplateID: id, Version: int32(version),
		}); err != nil {
			return err
		}
		v := int32(version)
		if err := q.SetDecompositionPublishedVersion(ctx, db.SetDecompositionPublishedVersionParams{
			TenantID: string(tenant), ID: id, PublishedVersion: &v,
		}); err != nil {
			return err
		}
		if err := q.SetActiveDecompositionTemplate(ctx, db.SetActiveDecompositionTemplateParams{
			TenantID: string(tenant), TemplateID: id,
		}); err != nil {
			return err
		}
		if err := notifyConfig(ctx, q, domain.ConfigDecomposition, tenant); err != nil {
			return err
		}
		var err error
		out, err = getDecompositionTemplate(ctx, q, tenant, id)
		return err
	})
	if err != nil {
		return domain.DecompositionTemplate{}, mapError(err, dtNotFound)
	}
	return out, nil
}

// PublishedDecomposition implements domain.DecompositionStore.
func (s *Store) PublishedDecomposition(ctx context.Context, tenant domain.TenantID) (domain.DecompositionVersion, error) {
	row, err := s.q.GetPublishedDecomposition(ctx, string(tenant))
	if err != nil {
		return domain.DecompositionVersion{}, mapError(err, "No decomposition template is published.")
	}
	v, err := decompositionVersionFromRow(db.GetDecompositionVersionRow(row))
	return v, mapError(err, "")
}

// decompositionVersioned binds the shared version writes to one template.
func decompositionVersioned(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string) versioned[domain.DecompositionContent] {
	return versioned[domain.DecompositionContent]{
		lock: func() (versionLock, error) {
			r, err := q.LockDecompositionTemplate(ctx, db.LockDecompositionTemplateParams{TenantID: string(tenant), ID: id})
			if err != nil {
				return versionLock{}, err
			}
			return newVersionLock(r.LatestVersion, r.PublishedVersion, r.Version), nil
		},
		latest: func() (domain.DecompositionContent, error) {
			t, err := getDecompositionTemplate(ctx, q, tenant, id)
			return t.Content, err
		},
		insert: func(n int32, c domain.DecompositionContent) error {
			return insertDecompositionVersion(ctx, q, tenant, id, n, c)
		},
		equal: domain.DecompositionContent.Equal,
	}
}

func getDecompositionTemplate(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string) (domain.DecompositionTemplate, error) {
	row, err := q.GetDecompositionTemplate(ctx, db.GetDecompositionTemplateParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.DecompositionTemplate{}, err
	}
	return decompositionTemplateFromRow(row)
}

func insertDecompositionVersion(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string, version int32, c domain.DecompositionContent) error {
	targets := make([]decompositionTargetJSON, len(c.Targets))
	for i, t := range c.Targets {
		targets[i] = decompositionTargetJSON{Kind: string(t.Kind), Key: t.Key, Description: t.Description, Examples: t.Examples}
	}
	data, err := json.Marshal(targets)
	if err != nil {
		return err
	}
	return q.InsertDecompositionVersion(ctx, db.InsertDecompositionVersionParams{
		TenantID: string(tenant), TemplateID: id, Version: version, Instruction: c.Instruction, Targets: data,
	})
}

// dtNameConflict gives the one unique rule of templates a precise message.
func dtNameConflict(err error) error {
	if domain.ErrorCodeOf(err) == domain.CodeConflict {
		return &domain.Error{
			Code: domain.CodeConflict, Message: "A decomposition template with this name already exists in the tenant.",
			Fields: []domain.FieldError{{Field: "/name", Message: "already taken"}}, Err: err,
		}
	}
	return err
}

// decompositionContentFromJSON decodes a stored version's targets; a row
// the store cannot read back is an internal error naming template id.
func decompositionContentFromJSON(instruction string, data []byte, id string) (domain.DecompositionContent, error) {
	var targets []decompositionTargetJSON
	if err := decodeStored(data, &targets, "targets of decomposition template", id); err != nil {
		return domain.DecompositionContent{}, err
	}
	c := domain.DecompositionContent{Instruction: instruction, Targets: make([]domain.DecompositionTarget, len(targets))}
	for i, t := range targets {
		c.Targets[i] = domain.DecompositionTarget{Kind: domain.DecompositionTargetKind(t.Kind), Key: t.Key,
			Description: t.Description, Examples: t.Examples}
	}
	return c, nil
}

func decompositionTemplateFromRow(r db.GetDecompositionTemplateRow) (domain.DecompositionTemplate, error) {
	c, err := decompositionContentFromJSON(r.Instruction, r.Targets, r.ID)
	if err != nil {
		return domain.DecompositionTemplate{}, err
	}
	t := domain.DecompositionTemplate{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Description: r.Description, Content: c,
		LatestVersion: int(r.LatestVersion), Active: r.Active, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.PublishedVersion != nil {
		p := int(*r.PublishedVersion)
		t.PublishedVersion = &p
	}
	return t, nil
}

func decompositionVersionFromRow(r db.GetDecompositionVersionRow) (domain.DecompositionVersion, error) {
	c, err := decompositionContentFromJSON(r.Instruction, r.Targets, r.TemplateID)
	if err != nil {
		return domain.DecompositionVersion{}, err
	}
	v := domain.DecompositionVersion{TemplateID: r.TemplateID, Version: int(r.Version), Content: c,
		CreatedAt: r.CreatedAt.UTC(), Published: r.Published}
	if r.LastPublishedAt != nil {
		at := r.LastPublishedAt.UTC()
		v.LastPublishedAt = &at
	}
	return v, nil
}
