package intent

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// fakeStore keeps rules in memory and stands for the knowledge bases and
// flows a rule names.
type fakeStore struct {
	Store // unused methods panic
	rules map[string]domain.IntentRule
	kbs   map[string]bool
	flows map[string]bool
	// lookupErr, when set, is the answer of every knowledge base and flow
	// lookup.
	lookupErr error
	writes    int
}

func newFakeStore() *fakeStore {
	return &fakeStore{rules: map[string]domain.IntentRule{}, kbs: map[string]bool{kb1: true}, flows: map[string]bool{"flow_refund": true}}
}

func (f *fakeStore) CreateIntentRule(_ context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	f.writes++
	r.Version = 1
	f.rules[r.ID] = r
	return r, nil
}

func (f *fakeStore) UpdateIntentRule(_ context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	f.writes++
	if _, ok := f.rules[r.ID]; !ok {
		return domain.IntentRule{}, domain.Errorf(domain.CodeNotFound, "no rule")
	}
	f.rules[r.ID] = r
	return r, nil
}

func (f *fakeStore) DeleteIntentRule(_ context.Context, _ domain.TenantID, id string) error {
	f.writes++
	if _, ok := f.rules[id]; !ok {
		return domain.Errorf(domain.CodeNotFound, "no rule")
	}
	delete(f.rules, id)
	return nil
}

func (f *fakeStore) AllIntentRules(context.Context, domain.TenantID) ([]domain.IntentRule, error) {
	var out []domain.IntentRule
	for _, r := range f.rules {
		out = append(out, r)
	}
	return out, nil
}

func (f *fakeStore) GetKnowledgeBase(_ context.Context, _ domain.TenantID, id string) (domain.KnowledgeBase, error) {
	if f.lookupErr != nil {
		return domain.KnowledgeBase{}, f.lookupErr
	}
	if !f.kbs[id] {
		return domain.KnowledgeBase{}, domain.Errorf(domain.CodeNotFound, "no kb")
	}
	return domain.KnowledgeBase{ID: id}, nil
}

func (f *fakeStore) GetScriptFlow(_ context.Context, _ domain.TenantID, id string) (domain.ScriptFlow, error) {
	if f.lookupErr != nil {
		return domain.ScriptFlow{}, f.lookupErr
	}
	if !f.flows[id] {
		return domain.ScriptFlow{}, domain.Errorf(domain.CodeNotFound, "no flow")
	}
	return domain.ScriptFlow{ID: id}, nil
}

// drops records the invalidations made.
type drops []string

func (d *drops) Drop(kind domain.ConfigKind, tenant domain.TenantID) {
	*d = append(*d, string(kind)+"/"+string(tenant))
}

func rag(kbs ...string) domain.IntentRule {
	return domain.IntentRule{TenantID: "acme", Name: "refund", Keywords: []string{"refund"},
		KeywordMode: string(ModeAny), ResponseType: string(ResponseRAG), KBIDs: kbs, Enabled: true}
}

func TestServiceCreateValidatesStoresAndDrops(t *testing.T) {
	st, d := newFakeStore(), &drops{}
	s := NewService(st, st, st, d)
	out, err := s.Create(context.Background(), rag(kb1))
	require.NoError(t, err)
	assert.NotEmpty(t, out.ID)
	assert.Contains(t, st.rules, out.ID)
	assert.Equal(t, drops{string(domain.ConfigIntentRules) + "/acme"}, *d)
}

func TestServiceRefusesUnknownKnowledgeBasesAndFlow(t *testing.T) {
	st, d := newFakeStore(), &drops{}
	s := NewService(st, st, st, d)
	r := rag(kb1, "kb_0190a1b2c3d47e5f8a9b0c1d2e3f4a5c", "kb_0190a1b2c3d47e5f8a9b0c1d2e3f4a5d")
	_, err := s.Create(context.Background(), r)
	assert.Equal(t, map[string]string{
		"/kbIds/1": "no such knowledge base in this tenant",
		"/kbIds/2": "no such knowledge base in this tenant",
	}, fields(t, err))

	fl := rag()
	fl.ResponseType, fl.FlowID = string(ResponseFlow), "flow_missing"
	_, err = s.Create(context.Background(), fl)
	assert.Equal(t, map[string]string{"/flowId": "no such script flow in this tenant"}, fields(t, err))
	var e *domain.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "/flowId", e.Fields[0].Field)

	fl.ID = "ir_1"
	_, err = s.Update(context.Background(), fl)
	assert.Equal(t, map[string]string{"/flowId": "no such script flow in this tenant"}, fields(t, err))

	assert.Zero(t, st.writes, "nothing is written")
	assert.Empty(t, *d, "nothing is dropped")
}

func TestServiceRefusesWhatTheMatcherRefuses(t *testing.T) {
	st := newFakeStore()
	s := NewService(st, st, st, nil)
	r := rag()
	r.Patterns = []string{"("}
	_, err := s.Create(context.Background(), r)
	want := Validate(r)
	require.Error(t, want)
	assert.Equal(t, want.Error(), err.Error())
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Zero(t, st.writes)
}

func TestServiceWithoutFlowsSkipsTheFlowCheck(t *testing.T) {
	st := newFakeStore()
	s := NewService(st, st, nil, nil)
	r := rag()
	r.ResponseType, r.FlowID = string(ResponseFlow), "flow_missing"
	_, err := s.Create(context.Background(), r)
	assert.NoError(t, err)
}

func TestServicePassesLookupFailuresOn(t *testing.T) {
	st := newFakeStore()
	st.lookupErr = errors.New("db down")
	s := NewService(st, st, st, nil)
	_, err := s.Create(context.Background(), rag(kb1))
	assert.EqualError(t, err, "db down")
}

func TestServiceUpdateAndDeleteDropOnlyAfterSuccess(t *testing.T) {
	st, d := newFakeStore(), &drops{}
	s := NewService(st, st, st, d)
	ctx := context.Background()
	r := rag(kb1)
	r.ID = "ir_missing"
	_, err := s.Update(ctx, r)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(s.Delete(ctx, "acme", "ir_missing")))
	assert.Empty(t, *d)

	out, err := s.Create(ctx, rag(kb1))
	require.NoError(t, err)
	out.Name = "refunds"
	_, err = s.Update(ctx, out)
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, "acme", out.ID))
	assert.Len(t, *d, 3)
}

func TestServiceTestUsesTheStoredRules(t *testing.T) {
	st := newFakeStore()
	s := NewService(st, st, st, nil)
	ctx := context.Background()
	out, err := s.Create(ctx, rag(kb1))
	require.NoError(t, err)
	res, err := s.Test(ctx, "acme", out.ID, "I want a refund")
	require.NoError(t, err)
	assert.True(t, res.Matches)
	assert.True(t, res.WouldWin)
	_, err = s.Test(ctx, "acme", "ir_missing", "refund")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
}
