package turn

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
)

// retrievalOutcome is the evidence found for the message, and whether it
// answers (found.Transfer is nil) or hands off.
type retrievalOutcome struct {
	draft
	found answer.Outcome
}

// retrieval retrieves over the gate's knowledge bases (none: all), with
// the session's slots and the decomposed message as filters, and decides
// whether the evidence answers.
func (m msg) retrieval(in gateOutcome) (retrievalOutcome, error) {
	done := m.stage(StageRetrieval)
	d, dec, refused := m.decompose(in.draft)
	out := retrievalOutcome{draft: d}
	filter, err := m.retrievalFilter(d.slots, dec)
	if err != nil {
		return out, err
	}
	q := query{kbIDs: in.kbIDs, filter: filter, dec: dec, refused: refused}
	if out.found, q.text, q.expanded, err = m.find(in.kbIDs, filter); err != nil {
		return out, err
	}
	outcome, detail := q.detail(out.found)
	done(outcome, detail)
	dn := out.found.Retrieval.Decision
	m.trace(toolKBSearch, map[string]any{"query": q.text, "kbIds": in.kbIDs, "filter": filter},
		kbSummary(dn.Hits, dn.TopScore), out.found.Retrieval.Timings["total"], nil)
	return out, nil
}

// query is how the message was searched, for the stage's trace.
type query struct {
	text     string
	expanded bool
	kbIDs    []string
	filter   map[string]any
	dec      *decompose.Result
	refused  []string
}

// detail is the retrieval stage's outcome and detail.
func (q query) detail(found answer.Outcome) (string, map[string]any) {
	d := found.Retrieval.Decision
	detail := map[string]any{"query": q.text, "expandedWithPreviousTurn": q.expanded, "hits": d.Hits, "topScore": d.TopScore,
		"answerability": d.Answerability, "margin": found.Retrieval.Margin, "evidenceTokens": d.EvidenceTokens,
		"confidence": d.Confidence, "strategy": string(found.Retrieval.Strategy.Mode)}
	if len(q.kbIDs) > 0 {
		detail["kbIds"] = q.kbIDs
	}
	if q.filter != nil {
		detail["filter"] = q.filter
	}
	if q.dec != nil {
		detail["decomposition"] = q.dec.Detail()
	}
	if len(q.refused) > 0 {
		detail["refusedSlots"] = q.refused
	}
	if found.Transfer != nil {
		detail["transferReason"] = found.Transfer.Code
		return "transfer", detail
	}
	return "sufficient", detail
}

// decompose runs the tenant's active decomposition template over the
// message before retrieval: the slot values it extracted fill the session
// (the newest value wins; refused are those the definitions do not
// allow), the metadata values join the retrieval filter. A failure is
// logged and changes nothing: the reply never fails for it. The result
// goes into the retrieval stage's detail; nil when nothing ran.
func (m msg) decompose(d draft) (draft, *decompose.Result, []string) {
	if m.r.d.Decomposer == nil {
		return d, nil, nil
	}
	res, ok, err := m.r.d.Decomposer.Message(m.ctx, m.in.Tenant, m.in.Message)
	if err != nil {
		m.r.d.Log.WarnContext(m.ctx, "decomposition skipped", "tenant", string(m.in.Tenant), "err", err)
		return d, nil, nil
	}
	if !ok {
		return d, nil, nil
	}
	rules, err := m.slots.get()
	if err != nil {
		m.r.d.Log.WarnContext(m.ctx, "decomposition skipped", "tenant", string(m.in.Tenant), "err", err)
		return d, nil, nil
	}
	var refused []string
	for _, k := range slices.Sorted(maps.Keys(res.Slots)) {
		var filled bool
		if d.slots, filled = fillSlot(d.slots, rules, k, res.Slots[k], &refused); filled {
			m.trace(toolSlotFill, map[string]any{"slot": k, "value": res.Slots[k], "templateId": res.TemplateID,
				"version": res.Version}, "filled "+k, 0, nil)
		}
	}
	return d, &res, refused
}

// retrievalFilter is the filter the message's retrieval runs with: the
// session's slots typed by their definitions (domain.SlotFilter), and the
// decomposition's metadata values of filter fields over them.
func (m msg) retrievalFilter(slots map[string]string, dec *decompose.Result) (map[string]any, error) {
	if m.r.d.Metadata == nil || (len(slots) == 0 && (dec == nil || len(dec.Metadata) == 0)) {
		return nil, nil
	}
	fields, err := m.r.d.Metadata.MetadataFields(m.ctx, m.in.Tenant, domain.MetadataFieldFilter{Role: ptr(domain.RoleFilter)})
	if err != nil {
		return nil, err
	}
	rules, err := m.slots.get()
	if err != nil {
		return nil, err
	}
	f := domain.SlotFilter(fields, rules, slots)
	if dec != nil {
		for k, v := range domain.MetadataFilter(fields, dec.Metadata) {
			if f == nil {
				f = map[string]any{}
			}
			f[k] = v
		}
	}
	return f, nil
}

// find retrieves for the customer's message. The message's own words come
// first: only when they alone would hand off is a short follow-up ("and
// for a laptop?") tried again with the previous question, so that a
// self-contained question ("Can I cancel my order?") is never answered
// from what was asked before it. And the evidence found with the previous
// question must hold one of the message's own terms, if it has any: a
// short question the knowledge does not answer ("Do you sell gift
// cards?") is handed off, not answered with the previous topic.
func (m msg) find(kbIDs []string, filter map[string]any) (answer.Outcome, string, bool, error) {
	req := answer.Request{Query: m.in.Message, KBIDs: kbIDs, Filter: filter, Generate: true, DryRun: m.dry, DeferRecord: true}
	out, err := m.findOnce(req)
	if err != nil || out.Transfer == nil {
		return out, req.Query, false, err
	}
	query, expanded := retrievalQuery(m.in.Message, m.ses.recent())
	if !expanded {
		return out, req.Query, false, nil
	}
	req.Query = query
	withPrevious, err := m.findOnce(req)
	if err != nil || withPrevious.Transfer != nil || !holdsOwnTerm(m.in.Message, withPrevious.Retrieval.Evidence) {
		return out, m.in.Message, false, err
	}
	return withPrevious, query, true, nil
}

// holdsOwnTerm reports whether one of the evidence chunks holds a term of
// message, or message has no term (all its words say nothing of a topic:
// "and how much?").
func holdsOwnTerm(message string, evidence []domain.Chunk) bool {
	own := analysis.TermSet(message)
	if len(own) == 0 {
		return true
	}
	for _, c := range evidence {
		for _, t := range analysis.Terms(c.SearchText()) {
			if _, ok := own[t]; ok {
				return true
			}
		}
	}
	return false
}

// findOnce runs one retrieval; its record is stored with the reply.
func (m msg) findOnce(req answer.Request) (answer.Outcome, error) {
	out, err := m.r.d.Answerer.Find(m.ctx, m.in.Tenant, req)
	if err == nil && !m.dry {
		m.log.records.Retrievals = append(m.log.records.Retrievals, out.Retrieval.Event)
	}
	return out, err
}

func kbSummary(hits int, top float64) string {
	return fmt.Sprintf("%d hits, top score %.3f", hits, top)
}
