package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// sealKey is the stored form of a provider key: sealed for its record when
// the store has a sealer.
func (s *Store) sealKey(key, context string) string {
	if s.sealer == nil {
		return key
	}
	return s.sealer.Seal(key, context)
}

// openKey is a stored provider key in clear. A value stored in clear by an
// earlier version is read as it is (ResealProviderKeys seals it at start).
// A value that does not open is CodeInternal: the operator's key is
// missing or wrong, which no request can fix.
func (s *Store) openKey(stored, context string) (string, error) {
	if s.sealer == nil {
		return stored, nil
	}
	key, _, err := s.sealer.Open(stored, context)
	if err != nil {
		return "", &domain.Error{Code: domain.CodeInternal, Message: "A stored provider API key cannot be read.", Err: err}
	}
	return key, nil
}

// ResealProviderKeys seals with the sealer's current key every stored
// provider API key that is not sealed with it: the clear values of
// versions before sealing, and those sealed with a previous key (rotation).
// Each row is rewritten only if it still holds what was read, so a
// configuration saved meanwhile is left alone. It returns how many keys it
// sealed; without a sealer it does nothing. A key that does not open is an
// error naming no secret.
func (s *Store) ResealProviderKeys(ctx context.Context) (int, error) {
	if s.sealer == nil {
		return 0, nil
	}
	sealed := 0
	llm, err := s.q.ListLLMConfigKeys(ctx)
	if err != nil {
		return 0, mapError(err, "")
	}
	for _, r := range llm {
		if s.sealer.Current(r.ApiKey) {
			continue
		}
		ctxName := llmKeyContext(domain.TenantID(r.TenantID), domain.UsageType(r.UsageType))
		key, err := s.openKey(r.ApiKey, ctxName)
		if err != nil {
			return sealed, err
		}
		n, err := s.q.ResealLLMConfigKey(ctx, db.ResealLLMConfigKeyParams{
			TenantID: r.TenantID, UsageType: r.UsageType, Stored: r.ApiKey, Sealed: s.sealer.Seal(key, ctxName),
		})
		if err != nil {
			return sealed, mapError(err, "")
		}
		sealed += int(n)
	}
	emb, err := s.q.ListEmbeddingConfigKeys(ctx)
	if err != nil {
		return sealed, mapError(err, "")
	}
	for _, r := range emb {
		if s.sealer.Current(r.ApiKey) {
			continue
		}
		ctxName := embeddingKeyContext(domain.TenantID(r.TenantID))
		key, err := s.openKey(r.ApiKey, ctxName)
		if err != nil {
			return sealed, err
		}
		n, err := s.q.ResealEmbeddingConfigKey(ctx, db.ResealEmbeddingConfigKeyParams{
			TenantID: r.TenantID, Stored: r.ApiKey, Sealed: s.sealer.Seal(key, ctxName),
		})
		if err != nil {
			return sealed, mapError(err, "")
		}
		sealed += int(n)
	}
	return sealed, nil
}
