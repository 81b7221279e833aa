package qdrant

import "context"

// Health asks Qdrant whether it serves (its HealthCheck call), within the
// store's timeout and the caller's deadline. It is nil when Qdrant
// answers; CodeUnavailable when it is down, busy or too slow, CodeInternal
// for any other refusal (a wrong API key).
func (s *Store) Health(ctx context.Context) error {
	return s.call(ctx, "health check", func(ctx context.Context) error {
		_, err := s.client.HealthCheck(ctx)
		return err
	})
}
