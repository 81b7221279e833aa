package ingest

import (
	"context"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// Limits of a metadata proposal.
const (
	// proposalTextRunes bounds the text a proposal reads: the start of a
	// document says what it is about.
	proposalTextRunes = 8000
	// proposalParseTimeout bounds the parse an upload waits for.
	proposalParseTimeout = 10 * time.Second
)

// Proposer proposes a document's metadata from its text: values of the
// tenant's document fields, normalised as user metadata is
// (*decompose.Decomposer).
type Proposer interface {
	ProposeMetadata(ctx context.Context, tenant domain.TenantID, text string) (map[string]any, error)
}

// WithProposer makes Propose ask p; call it while wiring.
func (s *Service) WithProposer(p Proposer) *Service {
	s.proposer = p
	return s
}

// Propose adds the metadata the proposer proposes for an upload that asks
// for it (u.ProposeMetadata) to u's metadata, where u names no value of
// its own, and returns the upload with what it added. It reads the file's
// name and, for text, Word and Excel files, the start of their text (PDFs
// and images are parsed only by the index job). A file that cannot be read
// here is proposed from its name; Upload then judges it as always.
func (s *Service) Propose(ctx context.Context, u Upload) (Upload, map[string]any, error) {
	added := map[string]any{}
	if !u.ProposeMetadata || s.proposer == nil {
		return u, added, nil
	}
	proposed, err := s.proposer.ProposeMetadata(ctx, u.Tenant, proposalText(ctx, u))
	if err != nil || len(proposed) == 0 {
		return u, added, err
	}
	meta := make(map[string]any, len(u.Metadata)+len(proposed))
	for k, v := range u.Metadata {
		meta[k] = v
	}
	for k, v := range proposed {
		if _, given := meta[k]; given {
			continue
		}
		if list, ok := v.([]string); ok {
			// User metadata is decoded JSON: lists are []any.
			items := make([]any, len(list))
			for i, it := range list {
				items[i] = it
			}
			v = items
		}
		meta[k], added[k] = v, proposed[k]
	}
	u.Metadata = meta
	return u, added, nil
}

// proposalText is what a proposal reads of an upload: its name, then the
// start of its text when it is a kind parsed quickly here.
func proposalText(ctx context.Context, u Upload) string {
	name, err := CleanFileName(u.FileName)
	if err != nil {
		name = ""
	}
	kind, err := detectKind(u.Content, name)
	if err != nil || (kind != parse.KindText && kind != parse.KindHTML && kind != parse.KindDOCX && kind != parse.KindXLSX) {
		return name
	}
	lim := parse.DefaultLimits()
	lim.Timeout = proposalParseTimeout
	doc, err := parse.Parse(ctx, kind, newBytesSource(u.Content), lim)
	if err != nil {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	n := 0
	for _, blk := range doc.Blocks {
		if n >= proposalTextRunes {
			break
		}
		text := []rune(blk.Text)
		text = text[:min(len(text), proposalTextRunes-n)]
		n += len(text)
		b.WriteString("\n")
		b.WriteString(string(text))
	}
	return b.String()
}
