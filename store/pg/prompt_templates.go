package pg

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// Compile-time check that Store keeps prompt templates.
var _ domain.PromptTemplateStore = (*Store)(nil)

const (
	tplNotFound        = "Prompt template not found."
	tplVersionNotFound = "Prompt template version not found."
)

// promptVariableJSON is a variable as stored in prompt_template_versions.variables.
type promptVariableJSON struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Default     string `json:"default,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description,omitempty"`
}

// CreatePromptTemplate implements domain.PromptTemplateStore.
func (s *Store) CreatePromptTemplate(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error) {
	var out domain.PromptTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := s.withinQuotas(ctx, q, t.TenantID, lockPrompts, "", adding(domain.QuotaPromptTemplates, 1)); err != nil {
			return err
		}
		if _, err := q.CreatePromptTemplate(ctx, db.CreatePromptTemplateParams{
			ID: t.ID, TenantID: string(t.TenantID), Name: t.Name, Description: t.Description, Scene: string(t.Scene),
		}); err != nil {
			return err
		}
		if err := insertPromptVersion(ctx, q, t.TenantID, t.ID, 1, t.Content); err != nil {
			return err
		}
		var err error
		out, err = getPromptTemplate(ctx, q, t.TenantID, t.ID)
		return err
	})
	if err != nil {
		return domain.PromptTemplate{}, tplNameConflict(mapError(err, tplNotFound))
	}
	return out, nil
}

// GetPromptTemplate implements domain.PromptTemplateStore.
func (s *Store) GetPromptTemplate(ctx context.Context, tenant domain.TenantID, id string) (domain.PromptTemplate, error) {
	t, err := getPromptTemplate(ctx, s.q, tenant, id)
	if err != nil {
		return domain.PromptTemplate{}, mapError(err, tplNotFound)
	}
	return t, nil
}

// ListPromptTemplates implements domain.PromptTemplateStore.
func (s *Store) ListPromptTemplates(ctx context.Context, tenant domain.TenantID, scene *domain.PromptScene, p domain.PageRequest) (domain.Page[domain.PromptTemplate], error) {
	rows, err := s.q.ListPromptTemplates(ctx, db.ListPromptTemplatesParams{
		TenantID: string(tenant), Scene: (*string)(scene), Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.PromptTemplate]{}, mapError(err, "")
	}
	items := make([]domain.PromptTemplate, len(rows))
	for i, r := range rows {
		if items[i], err = promptTemplateFromRow(db.GetPromptTemplateRow(r)); err != nil {
			return domain.Page[domain.PromptTemplate]{}, mapError(err, "")
		}
	}
	return domain.PageOf(items, p, func(t domain.PromptTemplate) string { return t.ID }), nil
}

// UpdatePromptTemplate implements domain.PromptTemplateStore: a changed
// content becomes a new version (versioned.save).
func (s *Store) UpdatePromptTemplate(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error) {
	var out domain.PromptTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		latest, err := promptVersioned(ctx, q, t.TenantID, t.ID, nil).save(t.Version, t.Content)
		if err != nil {
			return err
		}
		if err := q.UpdatePromptTemplate(ctx, db.UpdatePromptTemplateParams{
			TenantID: string(t.TenantID), ID: t.ID, Name: t.Name, Description: t.Description, LatestVersion: latest,
		}); err != nil {
			return err
		}
		out, err = getPromptTemplate(ctx, q, t.TenantID, t.ID)
		return err
	})
	if err != nil {
		return domain.PromptTemplate{}, tplNameConflict(mapError(err, tplNotFound))
	}
	return out, nil
}

// promptVersioned binds the shared version writes to one prompt template;
// scene, when not nil, receives the template's scene when it is locked.
func promptVersioned(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string, scene *string) versioned[domain.PromptContent] {
	return versioned[domain.PromptContent]{
		lock: func() (versionLock, error) {
			r, err := q.LockPromptTemplate(ctx, db.LockPromptTemplateParams{TenantID: string(tenant), ID: id})
			if err != nil {
				return versionLock{}, err
			}
			if scene != nil {
				*scene = r.Scene
			}
			return newVersionLock(r.LatestVersion, r.PublishedVersion, r.Version), nil
		},
		latest: func() (domain.PromptContent, error) {
			t, err := getPromptTemplate(ctx, q, tenant, id)
			return t.Content, err
		},
		insert: func(n int32, c domain.PromptContent) error { return insertPromptVersion(ctx, q, tenant, id, n, c) },
		equal:  domain.PromptContent.Equal,
	}
}

// DeletePromptTemplate implements domain.PromptTemplateStore. Versions
// and the scene row go with it (ON DELETE CASCADE).
func (s *Store) DeletePromptTemplate(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeletePromptTemplate(ctx, db.DeletePromptTemplateParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, tplNotFound)
		}
		return notifyConfig(ctx, q, domain.ConfigPromptTemplates, tenant)
	})
	return mapError(err, tplNotFound)
}

// ListPromptVersions implements domain.PromptTemplateStore.
func (s *Store) ListPromptVersions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.PromptVersion], error) {
	before, err := domain.VersionCursor(p)
	if err != nil {
		return domain.Page[domain.PromptVersion]{}, err
	}
	exists, err := s.q.PromptTemplateExists(ctx, db.PromptTemplateExistsParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.Page[domain.PromptVersion]{}, mapError(err, "")
	}
	if !exists {
		return domain.Page[domain.PromptVersion]{}, domain.Errorf(domain.CodeNotFound, tplNotFound)
	}
	rows, err := s.q.ListPromptVersions(ctx, db.ListPromptVersionsParams{
		TenantID: string(tenant), TemplateID: id, Before: int32(before), Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.PromptVersion]{}, mapError(err, "")
	}
	items := make([]domain.PromptVersion, len(rows))
	for i, r := range rows {
		if items[i], err = promptVersionFromRow(db.GetPromptVersionRow(r)); err != nil {
			return domain.Page[domain.PromptVersion]{}, mapError(err, "")
		}
	}
	return domain.VersionPage(items, p, func(v domain.PromptVersion) int { return v.Version }), nil
}

// GetPromptVersion implements domain.PromptTemplateStore.
func (s *Store) GetPromptVersion(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptVersion, error) {
	row, err := s.q.GetPromptVersion(ctx, db.GetPromptVersionParams{TenantID: string(tenant), TemplateID: id, Version: int32(version)})
	if err != nil {
		return domain.PromptVersion{}, mapError(err, tplVersionNotFound)
	}
	v, err := promptVersionFromRow(row)
	return v, mapError(err, "")
}

// PublishPromptVersion implements domain.PromptTemplateStore: in one
// transaction the version becomes the published one, the template the
// active one of its scene, and the replicas are told to drop their cache.
func (s *Store) PublishPromptVersion(ctx context.Context, tenant domain.TenantID, id string, version int, rollback bool) (domain.PromptTemplate, error) {
	var out domain.PromptTemplate
	err := s.inTx(ctx, func(q *db.Queries) error {
		var scene string
		if err := promptVersioned(ctx, q, tenant, id, &scene).checkPublish(version, rollback); err != nil {
			return err
		}
		if _, err := q.MarkPromptVersionPublished(ctx, db.MarkPromptVersionPublishedParams{
			TenantID: string(tenant), TemplateID: id, Version: int32(version),
		}); err != nil {
			return err
		}
		v := int32(version)
		if err := q.SetPromptPublishedVersion(ctx, db.SetPromptPublishedVersionParams{
			TenantID: string(tenant), ID: id, PublishedVersion: &v,
		}); err != nil {
			return err
		}
		if err := q.SetActivePromptTemplate(ctx, db.SetActivePromptTemplateParams{
			TenantID: string(tenant), Scene: scene, TemplateID: id,
		}); err != nil {
			return err
		}
		if err := notifyConfig(ctx, q, domain.ConfigPromptTemplates, tenant); err != nil {
			return err
		}
		var err error
		out, err = getPromptTemplate(ctx, q, tenant, id)
		return err
	})
	if err != nil {
		return domain.PromptTemplate{}, mapError(err, tplNotFound)
	}
	return out, nil
}

// PublishedPrompt implements domain.PromptTemplateStore.
func (s *Store) PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error) {
	row, err := s.q.GetPublishedPrompt(ctx, db.GetPublishedPromptParams{TenantID: string(tenant), Scene: scene})
	if err != nil {
		return domain.PromptVersion{}, mapError(err, "No prompt template is published for this scene.")
	}
	v, err := promptVersionFromRow(db.GetPromptVersionRow(row))
	return v, mapError(err, "")
}

func getPromptTemplate(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string) (domain.PromptTemplate, error) {
	row, err := q.GetPromptTemplate(ctx, db.GetPromptTemplateParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.PromptTemplate{}, err
	}
	return promptTemplateFromRow(row)
}

func insertPromptVersion(ctx context.Context, q *db.Queries, tenant domain.TenantID, id string, version int32, c domain.PromptContent) error {
	vars := make([]promptVariableJSON, len(c.Variables))
	for i, v := range c.Variables {
		vars[i] = promptVariableJSON{Name: v.Name, Kind: string(v.Kind), Default: v.Default, Required: v.Required, Description: v.Description}
	}
	data, err := json.Marshal(vars)
	if err != nil {
		return err
	}
	return q.InsertPromptVersion(ctx, db.InsertPromptVersionParams{
		TenantID: string(tenant), TemplateID: id, Version: version, SystemInstruction: c.SystemInstruction, Variables: data,
	})
}

// tplNameConflict gives the one unique rule of templates a precise message.
func tplNameConflict(err error) error {
	if domain.ErrorCodeOf(err) == domain.CodeConflict {
		return &domain.Error{
			Code: domain.CodeConflict, Message: "A prompt template with this name already exists in the tenant.",
			Fields: []domain.FieldError{{Field: "/name", Message: "already taken"}}, Err: err,
		}
	}
	return err
}

func promptVariablesFromJSON(data []byte) ([]domain.PromptVariable, error) {
	var vars []promptVariableJSON
	if err := json.Unmarshal(data, &vars); err != nil {
		return nil, fmt.Errorf("decode prompt variables: %w", err)
	}
	out := make([]domain.PromptVariable, len(vars))
	for i, v := range vars {
		out[i] = domain.PromptVariable{Name: v.Name, Kind: domain.PromptVariableKind(v.Kind), Default: v.Default,
			Required: v.Required, Description: v.Description}
	}
	return out, nil
}

func promptTemplateFromRow(r db.GetPromptTemplateRow) (domain.PromptTemplate, error) {
	vars, err := promptVariablesFromJSON(r.Variables)
	if err != nil {
		return domain.PromptTemplate{}, err
	}
	t := domain.PromptTemplate{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Description: r.Description,
		Scene: domain.PromptScene(r.Scene), Content: domain.PromptContent{SystemInstruction: r.SystemInstruction, Variables: vars},
		LatestVersion: int(r.LatestVersion), Version: r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if r.PublishedVersion != nil {
		p := int(*r.PublishedVersion)
		t.PublishedVersion = &p
	}
	return t, nil
}

func promptVersionFromRow(r db.GetPromptVersionRow) (domain.PromptVersion, error) {
	vars, err := promptVariablesFromJSON(r.Variables)
	if err != nil {
		return domain.PromptVersion{}, err
	}
	v := domain.PromptVersion{
		TemplateID: r.TemplateID, Version: int(r.Version), Scene: domain.PromptScene(r.Scene),
		SystemInstruction: r.SystemInstruction, Variables: vars, CreatedAt: r.CreatedAt.UTC(), Published: r.Published,
	}
	if r.LastPublishedAt != nil {
		at := r.LastPublishedAt.UTC()
		v.LastPublishedAt = &at
	}
	return v, nil
}
