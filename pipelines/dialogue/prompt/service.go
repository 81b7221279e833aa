package prompt

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// DefaultMonitoringWindow is the period the monitoring covers when the
// request names none.
const DefaultMonitoringWindow = 7 * 24 * time.Hour

// Service is the admin side of prompt templates: validated writes,
// publishing, previews and monitoring, over the store.
type Service struct {
	store    domain.PromptTemplateStore
	settings domain.SettingsStore
	tenants  Tenants
	// inv drops this replica's published prompts of a tenant after a
	// publish, rollback or delete (the store notifies the others).
	inv domain.Invalidator
	now func() time.Time
}

// Tenants resolves a tenant for its name (*access.Tenants, cached).
type Tenants interface {
	Resolve(ctx context.Context, id domain.TenantID) (domain.Tenant, error)
}

// NewService returns the service over its stores.
func NewService(store domain.PromptTemplateStore, settings domain.SettingsStore, tenants Tenants, inv domain.Invalidator) *Service {
	return &Service{store: store, settings: settings, tenants: tenants, inv: inv, now: time.Now}
}

// Create validates t's content and stores it as version 1.
func (s *Service) Create(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error) {
	if err := s.validate(t); err != nil {
		return domain.PromptTemplate{}, err
	}
	return s.store.CreatePromptTemplate(ctx, t)
}

// Update validates t's content and saves it; a changed content is a new version.
func (s *Service) Update(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error) {
	if err := s.validate(t); err != nil {
		return domain.PromptTemplate{}, err
	}
	return s.store.UpdatePromptTemplate(ctx, t)
}

func (s *Service) validate(t domain.PromptTemplate) error {
	if !t.Scene.Valid() {
		return domain.Invalid("/scene", "must be chat, rag_lab or summary")
	}
	return t.Content.Validate()
}

// Get returns a template. Returns CodeNotFound.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.PromptTemplate, error) {
	return s.store.GetPromptTemplate(ctx, tenant, id)
}

// List lists templates newest first, optionally of one scene.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, scene *domain.PromptScene, p domain.PageRequest) (domain.Page[domain.PromptTemplate], error) {
	return s.store.ListPromptTemplates(ctx, tenant, scene, p)
}

// Delete deletes a template; a scene it was active for returns to the
// built-in instruction. Returns CodeNotFound.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.store.DeletePromptTemplate(ctx, tenant, id)
	s.published(tenant, err)
	return err
}

// Versions lists a template's versions newest first. Returns CodeNotFound.
func (s *Service) Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.PromptVersion], error) {
	return s.store.ListPromptVersions(ctx, tenant, id, p)
}

// Publish makes version the published one and the template the active one
// of its scene.
func (s *Service) Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error) {
	t, err := s.store.PublishPromptVersion(ctx, tenant, id, version, false)
	s.published(tenant, err)
	return t, err
}

// Rollback publishes an earlier version; later versions are kept.
func (s *Service) Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error) {
	t, err := s.store.PublishPromptVersion(ctx, tenant, id, version, true)
	s.published(tenant, err)
	return t, err
}

// published drops the tenant's published prompts once a write that
// changed them has committed.
func (s *Service) published(tenant domain.TenantID, err error) {
	if err == nil {
		s.inv.Drop(domain.ConfigPromptTemplates, tenant)
	}
}

// PreviewResult is a rendered version.
type PreviewResult struct {
	Version int
	Rendered
	// Unfilled are the optional variables nothing filled, sorted.
	Unfilled []string
}

// Preview renders a version of a template (version nil: the published
// one, else the latest) with the tenant's built-ins (name, current time in
// its zone) and values (see Preview). Returns CodeNotFound, or
// CodeValidation for unknown names and unfilled required variables.
func (s *Service) Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, values map[string]string) (PreviewResult, error) {
	t, err := s.store.GetPromptTemplate(ctx, tenant, id)
	if err != nil {
		return PreviewResult{}, err
	}
	n, err := t.Versions().Pick(version)
	if err != nil {
		return PreviewResult{}, err
	}
	v, err := s.store.GetPromptVersion(ctx, tenant, id, n)
	if err != nil {
		return PreviewResult{}, err
	}
	b, err := s.Builtins(ctx, tenant)
	if err != nil {
		return PreviewResult{}, err
	}
	r, err := Preview(v, b.Map(), values)
	if err != nil {
		return PreviewResult{}, err
	}
	out := PreviewResult{Version: n, Rendered: r}
	for _, d := range v.Variables {
		if _, ok := r.Filled[d.Name]; !ok {
			out.Unfilled = append(out.Unfilled, d.Name)
		}
	}
	slices.Sort(out.Unfilled)
	return out, nil
}

// Builtins are the built-ins a render outside a conversation (a preview,
// the RAG lab) can know: the tenant's name and
// the current time in its zone.
func (s *Service) Builtins(ctx context.Context, tenant domain.TenantID) (Builtin, error) {
	tn, err := s.tenants.Resolve(ctx, tenant)
	if err != nil {
		return Builtin{}, err
	}
	st, err := s.settings.GetSettings(ctx, tenant)
	if err != nil {
		return Builtin{}, err
	}
	return Builtin{TenantName: tn.Name, TenantID: tenant, Now: s.now(), Location: st.Location()}, nil
}

// SceneStats totals one scene's renders.
type SceneStats struct {
	Scene       string
	Renders     int64
	Fallbacks   int64
	TokensTotal int64
}

// Report is the template monitoring of a period.
type Report struct {
	From, To time.Time
	// Items are per template version and scene.
	Items []domain.PromptRenderStats
	// Scenes total Items per scene, sorted by scene.
	Scenes []SceneStats
}

// Monitoring aggregates the renders in [from, to) (defaults: the last
// DefaultMonitoringWindow up to now). Returns CodeValidation when from is
// not before to or the range is longer than domain.MaxStatsRange.
func (s *Service) Monitoring(ctx context.Context, tenant domain.TenantID, from, to *time.Time, scene *domain.PromptScene) (Report, error) {
	var r Report
	var err error
	if r.From, r.To, err = domain.StatsRange(from, to, s.now(), DefaultMonitoringWindow); err != nil {
		return Report{}, err
	}
	items, err := s.store.PromptRenderStats(ctx, tenant, r.From, r.To, scene)
	if err != nil {
		return Report{}, err
	}
	r.Items = items
	at := map[string]int{} // scene → index in r.Scenes
	for _, it := range items {
		i, ok := at[it.Scene]
		if !ok {
			i = len(r.Scenes)
			at[it.Scene] = i
			r.Scenes = append(r.Scenes, SceneStats{Scene: it.Scene})
		}
		st := &r.Scenes[i]
		st.Renders += it.Renders
		st.Fallbacks += it.Fallbacks
		st.TokensTotal += it.TokensTotal
	}
	slices.SortFunc(r.Scenes, func(a, b SceneStats) int { return strings.Compare(a.Scene, b.Scene) })
	return r, nil
}
