package lexical

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

var _ domain.LexicalSearcher = (*Index)(nil)

// SearchWords implements domain.LexicalSearcher over Search.
func (x *Index) SearchWords(ctx context.Context, tenant domain.TenantID, q domain.LexicalQuery) ([]domain.LexicalHit, error) {
	hits, err := x.Search(ctx, tenant, Query{Text: q.Text, Expand: q.Expand, KBIDs: q.KBIDs, Filter: q.Filter, TopK: q.TopK})
	if err != nil {
		return nil, err
	}
	out := make([]domain.LexicalHit, len(hits))
	for i, h := range hits {
		out[i] = domain.LexicalHit{ChunkID: h.ChunkID, KBID: h.KBID, DocumentID: h.DocumentID, Score: h.Score}
	}
	return out, nil
}

// TermStats implements domain.LexicalSearcher over IDFs.
func (x *Index) TermStats(_ context.Context, tenant domain.TenantID, terms []string) ([]domain.TermStat, error) {
	return x.IDFs(tenant, terms), nil
}
