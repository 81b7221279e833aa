package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

// indexShareDivisor sets the default index memory quota: a quarter of the
// embedded index's bound, so that no one tenant's loading evicts more
// than a quarter of the others.
const indexShareDivisor = 4

// defaultQuotas are the platform's quotas when their variables are unset;
// the index memory quota is not here (it follows the index's bound).
func defaultQuotas() domain.QuotaValues {
	var q domain.QuotaValues
	q[domain.QuotaKnowledgeBases] = 100
	q[domain.QuotaDocuments] = 10_000
	q[domain.QuotaChunks] = 250_000
	q[domain.QuotaStoredBytes] = 1 << 30
	q[domain.QuotaIntentRules] = domain.MaxIntentRulesPerTenant
	q[domain.QuotaScriptFlows] = 200
	q[domain.QuotaPromptTemplates] = 200
	q[domain.QuotaDecompositionTemplates] = 100
	q[domain.QuotaStreamsPerKey] = 20
	return q
}

// QuotaVariable names the variable of quota q's platform default:
// ASSISTANT_QUOTA_ and the quota's name in capitals.
func QuotaVariable(q domain.Quota) string {
	return "ASSISTANT_QUOTA_" + strings.ToUpper(q.Name())
}

// loadQuotas reads the platform's default quotas into c (after
// IndexMemoryBytes, which the index memory quota follows by default). 0
// is no limit; intent rules stay within domain.MaxIntentRulesPerTenant
// whatever is set.
func loadQuotas(c *Config, getenv func(string) string) error {
	c.Quotas = defaultQuotas()
	c.Quotas[domain.QuotaIndexMemoryBytes] = c.IndexMemoryBytes / indexShareDivisor
	for _, q := range domain.AllQuotas() {
		name := QuotaVariable(q)
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s: want a whole number, 0 for no limit, got %q", name, v)
		}
		if q == domain.QuotaIntentRules && n > domain.MaxIntentRulesPerTenant {
			return fmt.Errorf("%s: at most %d (every message is matched against all the rules), got %q", name, domain.MaxIntentRulesPerTenant, v)
		}
		c.Quotas[q] = n
	}
	return nil
}

// quotaAttrs logs the quotas by name.
func quotaAttrs(q domain.QuotaValues) slog.Value {
	attrs := make([]slog.Attr, 0, len(q))
	for _, quota := range domain.AllQuotas() {
		attrs = append(attrs, slog.Int64(quota.Name(), q[quota]))
	}
	return slog.GroupValue(attrs...)
}
