package embed

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/embed/remote"
)

// Bounded is build with every configuration's timeout and retries held
// within b (domain.CallBounds.Bound): the builder of the index workers'
// embedders, so that a tenant whose provider hangs holds a worker for at
// most b's time, whatever the tenant configured. Questions from customers
// keep the tenant's own values.
func Bounded(build Builder, b domain.CallBounds) Builder {
	return func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
		timeout := time.Duration(cfg.TimeoutMs) * time.Millisecond
		if timeout == 0 {
			timeout = remote.DefaultTimeout
		}
		timeout, retries := b.Bound(timeout, int(cfg.Retries))
		cfg.TimeoutMs, cfg.Retries = int32(timeout.Milliseconds()), int32(retries)
		return build(cfg)
	}
}
