package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
)

// exportSessionsHaving is the HAVING clause of SearchConversations
// (queries/conversations.sql), word for word: the export finds the
// sessions the search finds. TestExportFiltersAsTheSearchDoes holds the
// two equal.
const exportSessionsHaving = `HAVING (@transferred::text = '' OR bool_or(m.should_transfer) = (@transferred = 'true'))
   AND (@transfer_reason::text = '' OR bool_or(m.transfer_reason = @transfer_reason))
   AND (@rule_id::text = '' OR bool_or(m.monitoring ->> 'ruleId' = @rule_id))
   AND (@flow_id::text = '' OR bool_or(m.monitoring ->> 'flowId' = @flow_id OR m.flow ->> 'flowId' = @flow_id))
   AND (NOT @by_confidence::boolean OR bool_or(m.confidence BETWEEN @min_confidence::float8 AND @max_confidence::float8))
   AND (@text::text = '' OR bool_or(strpos(lower(m.content), lower(@text)) > 0))`

// exportMessagesSQL streams every message in range of the matching
// sessions, sessions newest first and their messages oldest first. It is
// written here, not in queries/, because sqlc's :many collects every row
// before returning and an export must not: the rows are read off the
// connection one at a time. Every table is filtered by tenant_id.
const exportMessagesSQL = `WITH matched AS (
    SELECT m.session_id
    FROM chat_messages m
    WHERE m.tenant_id = @tenant_id
      AND (NOT @since::boolean OR m.created_at >= @from_at::timestamptz)
      AND (NOT @until::boolean OR m.created_at < @to_at::timestamptz)
      AND (@channel::text = '' OR EXISTS (
          SELECT 1 FROM chat_sessions s WHERE s.tenant_id = @tenant_id AND s.id = m.session_id AND s.channel = @channel))
    GROUP BY m.session_id
    ` + exportSessionsHaving + `
)
SELECT m.session_id, s.channel, m.id, m.created_at, m.role, m.content, m.thought, m.response_type, m.confidence,
       m.should_transfer, m.transfer_reason,
       m.monitoring ->> 'ruleId',
       coalesce(m.monitoring ->> 'flowId', m.flow ->> 'flowId'),
       coalesce((m.monitoring ->> 'flowStep')::int, (m.flow ->> 'stepNo')::int),
       m.monitoring ->> 'templateId',
       (m.monitoring ->> 'templateVersion')::int,
       m.sources,
       CASE WHEN m.monitoring IS NOT NULL THEN
           (SELECT coalesce(sum((st.value ->> 'durationUs')::bigint), 0)
            FROM jsonb_array_elements(coalesce(m.monitoring -> 'stages', '[]'::jsonb)) st)::bigint
       END,
       m.trace_id, m.status
FROM matched
JOIN chat_sessions s ON s.tenant_id = @tenant_id AND s.id = matched.session_id
JOIN chat_messages m ON m.tenant_id = @tenant_id AND m.session_id = matched.session_id
WHERE (NOT @since::boolean OR m.created_at >= @from_at::timestamptz)
  AND (NOT @until::boolean OR m.created_at < @to_at::timestamptz)
ORDER BY m.session_id DESC, m.id`

// ExportConversations implements domain.ConversationStore: the rows are
// scanned one at a time into the same variables and handed to each, so
// memory stays constant whatever the export's size.
func (s *Store) ExportConversations(ctx context.Context, tenant domain.TenantID, f domain.ConversationFilter, each func(domain.ExportRow) error) error {
	prm := searchParams(tenant, f)
	rows, err := s.pool.Query(ctx, exportMessagesSQL, pgx.NamedArgs{
		"tenant_id": prm.TenantID, "since": prm.Since, "from_at": prm.FromAt, "until": prm.Until, "to_at": prm.ToAt,
		"channel": prm.Channel, "transferred": prm.Transferred, "transfer_reason": prm.TransferReason,
		"rule_id": prm.RuleID, "flow_id": prm.FlowID, "by_confidence": prm.ByConfidence,
		"min_confidence": prm.MinConfidence, "max_confidence": prm.MaxConfidence, "text": prm.Text,
	})
	if err != nil {
		return mapError(err, "")
	}
	defer rows.Close()
	var (
		r          domain.ExportRow
		flowStep   *int32
		tplVersion *int32
		sources    []byte
		latencyUs  *int64
		status     string
		createdAt  time.Time
		traceID    string
	)
	for rows.Next() {
		err := rows.Scan(&r.SessionID, &r.Channel, &r.MessageID, &createdAt, &r.Role, &r.Content, &r.Thought, &r.ResponseType,
			&r.Confidence, &r.ShouldTransfer, &r.TransferReason, &r.RuleID, &r.FlowID, &flowStep, &r.TemplateID, &tplVersion,
			&sources, &latencyUs, &traceID, &status)
		if err != nil {
			return mapError(err, "")
		}
		r.CreatedAt, r.Status, r.TraceID = createdAt.UTC(), domain.MessageStatus(status), traceID
		r.FlowStep, r.TemplateVersion, r.Latency = intPtr(flowStep), intPtr(tplVersion), nil
		if latencyUs != nil {
			d := time.Duration(*latencyUs) * time.Microsecond
			r.Latency = &d
		}
		if r.Sources, err = decodeSources(sources); err != nil {
			return mapError(err, "")
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return mapError(rows.Err(), "")
}

func intPtr(p *int32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}
