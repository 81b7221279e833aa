package pg

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// The monitoring records of the dialogue: rule evaluations and hits, flow
// events, prompt renders, guardrail hits and retrieval events. Each is
// queued on a batch, so that a reply is stored with all of its records in
// one round trip (SaveTurn); each Record method sends its records alone,
// also in one round trip.

// RecordIntentOutcome implements domain.IntentMonitoringStore. The
// evaluation is counted in one of its UTC hour's rows (an upsert on a
// stripe chosen at random); the hit, if any, is inserted with it, unless
// its rule is gone (deleted since the message matched it): the message
// was still evaluated.
func (s *Store) RecordIntentOutcome(ctx context.Context, tenant domain.TenantID, hit *domain.IntentHit, at time.Time) error {
	return s.sendWrites(ctx, func(q *db.Queries) error { return writeIntentOutcome(ctx, q, tenant, hit, at) })
}

// RecordFlowEvents implements domain.FlowEventStore: the rows get
// increasing ids in the order given, which orders the events of an
// instance that share a timestamp.
func (s *Store) RecordFlowEvents(ctx context.Context, events []domain.FlowEvent) error {
	return s.sendWrites(ctx, func(q *db.Queries) error { return writeFlowEvents(ctx, q, events) })
}

// RecordPromptRenders implements domain.PromptTemplateStore.
func (s *Store) RecordPromptRenders(ctx context.Context, renders []domain.PromptRender) error {
	return s.sendWrites(ctx, func(q *db.Queries) error { return writePromptRenders(ctx, q, renders) })
}

// RecordGuardHits implements domain.GuardHitStore; a zero At is now.
func (s *Store) RecordGuardHits(ctx context.Context, hits []domain.GuardHit) error {
	return s.sendWrites(ctx, func(q *db.Queries) error { return writeGuardHits(ctx, q, hits) })
}

// RecordRetrieval implements domain.StrategyStore.
func (s *Store) RecordRetrieval(ctx context.Context, e domain.RetrievalEvent) error {
	return s.sendWrites(ctx, func(q *db.Queries) error { return writeRetrieval(ctx, q, e) })
}

// sendWrites sends what write queues as one batch.
func (s *Store) sendWrites(ctx context.Context, write func(q *db.Queries) error) error {
	_, err := s.sendQueued(ctx, func(q *db.Queries) { _ = write(q) }) // on a batch it only queues
	return mapError(err, "")
}

// The write functions write with q: on a batch they only queue (and
// answer nil), and the batch's send reports what failed; in a
// transaction they run.

// intentEvaluationStripes is how many rows an hour's count of a tenant's
// intent evaluations is spread over (schema 0027): every reply adds one,
// and replies committing at once would otherwise queue on one row's lock.
const intentEvaluationStripes = 8

func writeIntentOutcome(ctx context.Context, q *db.Queries, tenant domain.TenantID, hit *domain.IntentHit, at time.Time) error {
	if at.IsZero() && hit != nil {
		at = hit.At
	}
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	if hit != nil {
		err := q.InsertIntentHit(ctx, db.InsertIntentHitParams{
			TenantID: string(tenant), RuleID: hit.RuleID, SessionID: hit.SessionID, MessageID: hit.MessageID,
			Keywords: nonNil(hit.Keywords), Patterns: nonNil(hit.Patterns), At: at,
		})
		if err != nil {
			return err
		}
	}
	return q.CountIntentEvaluation(ctx, db.CountIntentEvaluationParams{
		TenantID: string(tenant), Hour: at.Truncate(time.Hour), Stripe: int16(rand.IntN(intentEvaluationStripes)),
	})
}

func writeFlowEvents(ctx context.Context, q *db.Queries, events []domain.FlowEvent) error {
	for _, e := range events {
		if err := q.InsertFlowEvent(ctx, db.InsertFlowEventParams{
			TenantID: string(e.TenantID), FlowID: e.FlowID, SessionID: e.SessionID, Kind: string(e.Kind),
			StepNo: int32(e.StepNo), TimedOut: e.TimedOut, At: e.At.UTC(),
		}); err != nil {
			return err
		}
	}
	return nil
}

func writePromptRenders(ctx context.Context, q *db.Queries, renders []domain.PromptRender) error {
	for _, r := range renders {
		at := r.At
		if at.IsZero() {
			at = time.Now()
		}
		if err := q.InsertPromptRender(ctx, db.InsertPromptRenderParams{
			TenantID: string(r.TenantID), TemplateID: r.TemplateID, Version: int32(r.Version), Scene: r.Scene,
			Tokens: int32(r.Tokens), Fallback: r.Fallback, At: at,
		}); err != nil {
			return err
		}
	}
	return nil
}

func writeGuardHits(ctx context.Context, q *db.Queries, hits []domain.GuardHit) error {
	now := time.Now().UTC()
	for _, h := range hits {
		at := h.At
		if at.IsZero() {
			at = now
		}
		if err := q.InsertGuardHit(ctx, db.InsertGuardHitParams{
			TenantID: string(h.TenantID), SessionID: h.SessionID, MessageID: h.MessageID, Stage: string(h.Stage),
			Kind: h.Kind, RefID: h.RefID, Category: h.Category, Pattern: h.Pattern, Action: h.Action, At: at.UTC(),
		}); err != nil {
			return err
		}
	}
	return nil
}

func writeRetrieval(ctx context.Context, q *db.Queries, e domain.RetrievalEvent) error {
	return q.InsertRetrievalEvent(ctx, db.InsertRetrievalEventParams{
		TenantID: string(e.TenantID), StrategyID: e.Strategy.ID(), Config: encodeStrategy(e.Strategy), Hits: e.Hits, TopScore: e.TopScore,
		EvidenceTokens: e.EvidenceTokens, Insufficient: e.Insufficient, Transferred: e.Transferred, LatencyMs: e.LatencyMs,
	})
}
