package pg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

var _ domain.GuardrailStore = (*Store)(nil)

const (
	wordNotFound         = "Forbidden word not found."
	behaviorRuleNotFound = "Behaviour rule not found."
)

// guardWrite runs one guardrail write of tenant: under the tenant's
// guardrail lock, write, then check the whole resulting configuration,
// then tell every replica. An error of any step rolls the write back.
func (s *Store) guardWrite(ctx context.Context, tenant domain.TenantID, check domain.GuardConfigCheck, write func(q *db.Queries) error) error {
	return s.inTx(ctx, func(q *db.Queries) error {
		if err := q.LockGuardrails(ctx, string(tenant)); err != nil {
			return err
		}
		if err := write(q); err != nil {
			return err
		}
		if check != nil {
			cfg, err := loadGuardConfig(ctx, q, tenant)
			if err != nil {
				return err
			}
			if err := check(cfg); err != nil {
				return err
			}
		}
		return notifyConfig(ctx, q, domain.ConfigGuardrails, tenant)
	})
}

// CreateForbiddenWord implements domain.GuardrailStore.
func (s *Store) CreateForbiddenWord(ctx context.Context, w domain.ForbiddenWord, check domain.GuardConfigCheck) (domain.ForbiddenWord, error) {
	var row db.GuardForbiddenWord
	err := s.guardWrite(ctx, w.TenantID, check, func(q *db.Queries) error {
		var err error
		row, err = q.CreateForbiddenWord(ctx, db.CreateForbiddenWordParams{
			ID: w.ID, TenantID: string(w.TenantID), Word: w.Word, MatchMode: string(w.MatchMode),
			Action: string(w.Action), Replacement: w.Replacement,
		})
		return err
	})
	if err != nil {
		return domain.ForbiddenWord{}, wordConflict(mapError(err, wordNotFound))
	}
	return forbiddenWordFromRow(row), nil
}

// GetForbiddenWord implements domain.GuardrailStore.
func (s *Store) GetForbiddenWord(ctx context.Context, tenant domain.TenantID, id string) (domain.ForbiddenWord, error) {
	row, err := s.q.GetForbiddenWord(ctx, db.GetForbiddenWordParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.ForbiddenWord{}, mapError(err, wordNotFound)
	}
	return forbiddenWordFromRow(row), nil
}

// ListForbiddenWords implements domain.GuardrailStore.
func (s *Store) ListForbiddenWords(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.ForbiddenWord], error) {
	rows, err := s.q.ListForbiddenWords(ctx, db.ListForbiddenWordsParams{TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.ForbiddenWord]{}, mapError(err, "")
	}
	items := make([]domain.ForbiddenWord, len(rows))
	for i, r := range rows {
		items[i] = forbiddenWordFromRow(r)
	}
	return domain.PageOf(items, p, func(w domain.ForbiddenWord) string { return w.ID }), nil
}

// UpdateForbiddenWord implements domain.GuardrailStore.
func (s *Store) UpdateForbiddenWord(ctx context.Context, w domain.ForbiddenWord, check domain.GuardConfigCheck) (domain.ForbiddenWord, error) {
	var row db.GuardForbiddenWord
	err := s.guardWrite(ctx, w.TenantID, check, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateForbiddenWord(ctx, db.UpdateForbiddenWordParams{
			TenantID: string(w.TenantID), ID: w.ID, Word: w.Word, MatchMode: string(w.MatchMode),
			Action: string(w.Action), Replacement: w.Replacement, Version: w.Version,
		})
		if errors.Is(err, pgx.ErrNoRows) {
			exists, exErr := q.ForbiddenWordExists(ctx, db.ForbiddenWordExistsParams{TenantID: string(w.TenantID), ID: w.ID})
			return missingOrStale(exists, exErr, wordNotFound)
		}
		return err
	})
	if err != nil {
		return domain.ForbiddenWord{}, wordConflict(mapError(err, wordNotFound))
	}
	return forbiddenWordFromRow(row), nil
}

// DeleteForbiddenWord implements domain.GuardrailStore.
func (s *Store) DeleteForbiddenWord(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.guardWrite(ctx, tenant, nil, func(q *db.Queries) error {
		n, err := q.DeleteForbiddenWord(ctx, db.DeleteForbiddenWordParams{TenantID: string(tenant), ID: id})
		if err == nil && n == 0 {
			return domain.Errorf(domain.CodeNotFound, wordNotFound)
		}
		return err
	})
	return mapError(err, wordNotFound)
}

// CreateBehaviorRule implements domain.GuardrailStore.
func (s *Store) CreateBehaviorRule(ctx context.Context, r domain.BehaviorRule, check domain.GuardConfigCheck) (domain.BehaviorRule, error) {
	var row db.GuardBehaviorRule
	err := s.guardWrite(ctx, r.TenantID, check, func(q *db.Queries) error {
		var err error
		row, err = q.CreateBehaviorRule(ctx, db.CreateBehaviorRuleParams{
			ID: r.ID, TenantID: string(r.TenantID), Name: r.Name, Kind: string(r.Kind), Pattern: r.Pattern,
			Category: r.Category, Action: string(r.Action), Text: r.Text, Enabled: r.Enabled, Position: r.Position,
		})
		return err
	})
	if err != nil {
		return domain.BehaviorRule{}, mapError(err, behaviorRuleNotFound)
	}
	return behaviorRuleFromRow(row), nil
}

// GetBehaviorRule implements domain.GuardrailStore.
func (s *Store) GetBehaviorRule(ctx context.Context, tenant domain.TenantID, id string) (domain.BehaviorRule, error) {
	row, err := s.q.GetBehaviorRule(ctx, db.GetBehaviorRuleParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.BehaviorRule{}, mapError(err, behaviorRuleNotFound)
	}
	return behaviorRuleFromRow(row), nil
}

// ListBehaviorRules implements domain.GuardrailStore. The cursor is the
// last rule's position and id, since rules are listed in the order they
// apply.
func (s *Store) ListBehaviorRules(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.BehaviorRule], error) {
	arg := db.ListBehaviorRulesParams{TenantID: string(tenant), Lim: int32(p.Limit + 1)}
	if p.After != "" {
		pos, id, ok := strings.Cut(p.After, "/")
		n, err := strconv.ParseInt(pos, 10, 32)
		if !ok || err != nil || id == "" {
			return domain.Page[domain.BehaviorRule]{}, &domain.Error{
				Code: domain.CodeInvalidCursor, Message: "The cursor is not one this service handed out.",
				Fields: []domain.FieldError{{Field: "query.cursor", Message: "unknown cursor"}},
			}
		}
		arg.AfterPosition, arg.AfterID = int32(n), id
	}
	rows, err := s.q.ListBehaviorRules(ctx, arg)
	if err != nil {
		return domain.Page[domain.BehaviorRule]{}, mapError(err, "")
	}
	items := make([]domain.BehaviorRule, len(rows))
	for i, r := range rows {
		items[i] = behaviorRuleFromRow(r)
	}
	return domain.PageOf(items, p, func(r domain.BehaviorRule) string { return fmt.Sprintf("%d/%s", r.Position, r.ID) }), nil
}

// UpdateBehaviorRule implements domain.GuardrailStore.
func (s *Store) UpdateBehaviorRule(ctx context.Context, r domain.BehaviorRule, check domain.GuardConfigCheck) (domain.BehaviorRule, error) {
	var row db.GuardBehaviorRule
	err := s.guardWrite(ctx, r.TenantID, check, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateBehaviorRule(ctx, db.UpdateBehaviorRuleParams{
			TenantID: string(r.TenantID), ID: r.ID, Name: r.Name, Kind: string(r.Kind), Pattern: r.Pattern,
			Category: r.Category, Action: string(r.Action), Text: r.Text, Enabled: r.Enabled, Position: r.Position,
			Version: r.Version,
		})
		if errors.Is(err, pgx.ErrNoRows) {
			exists, exErr := q.BehaviorRuleExists(ctx, db.BehaviorRuleExistsParams{TenantID: string(r.TenantID), ID: r.ID})
			return missingOrStale(exists, exErr, behaviorRuleNotFound)
		}
		return err
	})
	if err != nil {
		return domain.BehaviorRule{}, mapError(err, behaviorRuleNotFound)
	}
	return behaviorRuleFromRow(row), nil
}

// DeleteBehaviorRule implements domain.GuardrailStore.
func (s *Store) DeleteBehaviorRule(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.guardWrite(ctx, tenant, nil, func(q *db.Queries) error {
		n, err := q.DeleteBehaviorRule(ctx, db.DeleteBehaviorRuleParams{TenantID: string(tenant), ID: id})
		if err == nil && n == 0 {
			return domain.Errorf(domain.CodeNotFound, behaviorRuleNotFound)
		}
		return err
	})
	return mapError(err, behaviorRuleNotFound)
}

// GetGuardSettings implements domain.GuardrailStore.
func (s *Store) GetGuardSettings(ctx context.Context, tenant domain.TenantID) (domain.GuardSettings, error) {
	return getGuardSettings(ctx, s.q, tenant)
}

// SaveGuardSettings implements domain.GuardrailStore.
func (s *Store) SaveGuardSettings(ctx context.Context, gs domain.GuardSettings, check domain.GuardConfigCheck) (domain.GuardSettings, error) {
	lists, err := json.Marshal(highRiskToJSON(gs.HighRisk))
	if err != nil {
		return domain.GuardSettings{}, err
	}
	var row db.GuardSetting
	err = s.guardWrite(ctx, gs.TenantID, check, func(q *db.Queries) error {
		var err error
		if gs.Version == 0 {
			row, err = q.InsertGuardSettings(ctx, db.InsertGuardSettingsParams{
				TenantID: string(gs.TenantID), SafeText: gs.SafeText, SkipDefaultHighRisk: gs.SkipDefaultHighRisk, HighRisk: lists,
			})
		} else {
			row, err = q.UpdateGuardSettings(ctx, db.UpdateGuardSettingsParams{
				TenantID: string(gs.TenantID), SafeText: gs.SafeText, SkipDefaultHighRisk: gs.SkipDefaultHighRisk, HighRisk: lists,
				Version: gs.Version,
			})
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return staleVersion() // saved by someone else first, or a stale version
		}
		return err
	})
	if err != nil {
		return domain.GuardSettings{}, mapError(err, tenantNotFound)
	}
	return guardSettingsFromRow(row)
}

// LoadGuardConfig implements domain.GuardrailStore.
func (s *Store) LoadGuardConfig(ctx context.Context, tenant domain.TenantID) (domain.GuardConfig, error) {
	var cfg domain.GuardConfig
	// One snapshot, so the settings, words and rules belong together.
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		cfg, err = loadGuardConfig(ctx, s.q.WithTx(tx), tenant)
		return err
	})
	if err != nil {
		return domain.GuardConfig{}, mapError(err, "")
	}
	return cfg, nil
}

// loadGuardConfig reads the tenant's whole configuration with q.
func loadGuardConfig(ctx context.Context, q *db.Queries, tenant domain.TenantID) (domain.GuardConfig, error) {
	settings, err := getGuardSettings(ctx, q, tenant)
	if err != nil {
		return domain.GuardConfig{}, err
	}
	words, err := q.AllForbiddenWords(ctx, string(tenant))
	if err != nil {
		return domain.GuardConfig{}, err
	}
	rules, err := q.AllBehaviorRules(ctx, string(tenant))
	if err != nil {
		return domain.GuardConfig{}, err
	}
	cfg := domain.GuardConfig{Settings: settings, Words: make([]domain.ForbiddenWord, len(words)), Rules: make([]domain.BehaviorRule, len(rules))}
	for i, w := range words {
		cfg.Words[i] = forbiddenWordFromRow(w)
	}
	for i, r := range rules {
		cfg.Rules[i] = behaviorRuleFromRow(r)
	}
	return cfg, nil
}

// getGuardSettings reads the tenant's settings: version 0 empty settings
// when it never saved any.
func getGuardSettings(ctx context.Context, q *db.Queries, tenant domain.TenantID) (domain.GuardSettings, error) {
	row, err := q.GetGuardSettings(ctx, string(tenant))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.GuardSettings{TenantID: tenant}, nil
	}
	if err != nil {
		return domain.GuardSettings{}, mapError(err, "")
	}
	return guardSettingsFromRow(row)
}

// missingOrStale explains an update that changed no row: the resource is
// gone (CodeNotFound) or the version was stale.
func missingOrStale(exists bool, err error, notFound string) error {
	switch {
	case err != nil:
		return err
	case !exists:
		return domain.Errorf(domain.CodeNotFound, "%s", notFound)
	}
	return staleVersion()
}

// wordConflict gives the unique rule of forbidden words a precise message.
func wordConflict(err error) error {
	if domain.ErrorCodeOf(err) == domain.CodeConflict {
		return &domain.Error{
			Code: domain.CodeConflict, Message: "The tenant already has this forbidden word (compared case-insensitively).",
			Fields: []domain.FieldError{{Field: "/word", Message: "already listed"}}, Err: err,
		}
	}
	return err
}

// highRiskJSON is how a high-risk list is stored (jsonb).
type highRiskJSON struct {
	Category string   `json:"category"`
	Keywords []string `json:"keywords"`
	Patterns []string `json:"patterns"`
}

func highRiskToJSON(ls []domain.HighRiskList) []highRiskJSON {
	out := make([]highRiskJSON, len(ls))
	for i, l := range ls {
		out[i] = highRiskJSON{Category: l.Category, Keywords: nonNil(l.Keywords), Patterns: nonNil(l.Patterns)}
	}
	return out
}

func guardSettingsFromRow(r db.GuardSetting) (domain.GuardSettings, error) {
	var lists []highRiskJSON
	if err := json.Unmarshal(r.HighRisk, &lists); err != nil {
		return domain.GuardSettings{}, fmt.Errorf("guard_settings.high_risk of %s: %w", r.TenantID, err)
	}
	out := domain.GuardSettings{
		TenantID: domain.TenantID(r.TenantID), SafeText: r.SafeText, SkipDefaultHighRisk: r.SkipDefaultHighRisk,
		HighRisk: make([]domain.HighRiskList, len(lists)), Version: r.Version, UpdatedAt: utcPtr(&r.UpdatedAt),
	}
	for i, l := range lists {
		out.HighRisk[i] = domain.HighRiskList{Category: l.Category, Keywords: nonNil(l.Keywords), Patterns: nonNil(l.Patterns)}
	}
	return out, nil
}

func forbiddenWordFromRow(r db.GuardForbiddenWord) domain.ForbiddenWord {
	return domain.ForbiddenWord{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Word: r.Word, MatchMode: domain.GuardMatchMode(r.MatchMode),
		Action: domain.GuardAction(r.Action), Replacement: r.Replacement, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func behaviorRuleFromRow(r db.GuardBehaviorRule) domain.BehaviorRule {
	return domain.BehaviorRule{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Kind: domain.GuardRuleKind(r.Kind),
		Pattern: r.Pattern, Category: r.Category, Action: domain.GuardAction(r.Action), Text: r.Text,
		Enabled: r.Enabled, Position: r.Position, Version: r.Version,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}
