package llm

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Bounded is build with every configuration's timeout and retries held
// within b (domain.CallBounds.Bound): the builder of the models that
// background work asks (the questions written while a document is
// indexed), so that a tenant whose model hangs holds a worker for at most
// b's time. Customers' conversations keep the tenant's own values.
func Bounded(build Builder, b domain.CallBounds) Builder {
	return func(cfg domain.LLMConfig) (domain.ChatModel, error) {
		timeout := time.Duration(cfg.TimeoutMs) * time.Millisecond
		if timeout == 0 {
			timeout = DefaultTimeout
		}
		timeout, retries := b.Bound(timeout, int(cfg.Retries))
		cfg.TimeoutMs, cfg.Retries = int32(timeout.Milliseconds()), int32(retries)
		return build(cfg)
	}
}
