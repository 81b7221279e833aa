package hybrid

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Search implements domain.VectorStore, loading the tenant first if it is
// not resident.
func (x *Index) Search(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) ([]domain.VectorHit, error) {
	t, err := x.use(ctx, tenant)
	if err != nil {
		return nil, err
	}
	defer x.release(t)
	return t.vectors.Search(ctx, tenant, q)
}

// SearchWords implements domain.LexicalSearcher, loading the tenant first
// if it is not resident.
func (x *Index) SearchWords(ctx context.Context, tenant domain.TenantID, q domain.LexicalQuery) ([]domain.LexicalHit, error) {
	t, err := x.use(ctx, tenant)
	if err != nil {
		return nil, err
	}
	defer x.release(t)
	return t.words.SearchWords(ctx, tenant, q)
}

// TermStats implements domain.LexicalSearcher, loading the tenant first
// if it is not resident.
func (x *Index) TermStats(ctx context.Context, tenant domain.TenantID, terms []string) ([]domain.TermStat, error) {
	t, err := x.use(ctx, tenant)
	if err != nil {
		return nil, err
	}
	defer x.release(t)
	return t.words.TermStats(ctx, tenant, terms)
}
