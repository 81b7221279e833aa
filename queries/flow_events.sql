-- Every query filters by tenant_id.
--
-- An instance is one run of a flow in one session: its "started" event and
-- the events after it, up to the next "started" of the same flow and
-- session. The window numbers the instances by counting the starts so far;
-- events before the first start in the range (inst = 0) belong to an
-- instance started before it and are left out. Instances count when they
-- started in [from, to); their later events count too.

-- name: InsertFlowEvent :exec
INSERT INTO flow_events (tenant_id, flow_id, session_id, kind, step_no, timed_out, at)
VALUES (@tenant_id, @flow_id, @session_id, @kind, @step_no, @timed_out, @at);

-- name: FlowStatsTotals :many
WITH ev AS (
    SELECT flow_id, session_id, kind, timed_out, at, id,
           count(*) FILTER (WHERE kind = 'started')
               OVER (PARTITION BY flow_id, session_id ORDER BY at, id) AS inst
    FROM flow_events fe
    WHERE fe.tenant_id = @tenant_id AND fe.at >= @from_time
), inst AS (
    SELECT flow_id, session_id, inst,
           (array_agg(kind ORDER BY at DESC, id DESC) FILTER (WHERE kind NOT IN ('started', 'step')))[1] AS ending,
           count(*) FILTER (WHERE kind = 'timed_out' OR timed_out) AS timeouts
    FROM ev
    WHERE inst > 0
    GROUP BY flow_id, session_id, inst
    HAVING min(at) FILTER (WHERE kind = 'started') < @to_time
), agg AS (
    SELECT flow_id,
           count(*) AS starts,
           count(*) FILTER (WHERE ending IS NULL) AS active,
           count(*) FILTER (WHERE ending = 'completed') AS completions,
           count(*) FILTER (WHERE ending = 'transferred') AS transfers,
           count(*) FILTER (WHERE ending = 'timed_out') AS timeout_endings,
           count(*) FILTER (WHERE ending = 'invalid_input') AS invalid_input_endings,
           count(*) FILTER (WHERE ending = 'dropped') AS dropped,
           sum(timeouts) AS timeouts
    FROM inst
    GROUP BY flow_id
), flows AS (
    SELECT id, name, jsonb_array_length(steps) AS step_count
    FROM script_flows sf
    WHERE sf.tenant_id = @tenant_id
)
SELECT coalesce(f.id, a.flow_id)::text AS flow_id,
       coalesce(f.name, '')::text AS name,
       (f.id IS NULL)::boolean AS deleted,
       coalesce(f.step_count, 0)::integer AS step_count,
       coalesce(a.starts, 0)::bigint AS starts,
       coalesce(a.active, 0)::bigint AS active,
       coalesce(a.completions, 0)::bigint AS completions,
       coalesce(a.transfers, 0)::bigint AS transfers,
       coalesce(a.timeout_endings, 0)::bigint AS timeout_endings,
       coalesce(a.invalid_input_endings, 0)::bigint AS invalid_input_endings,
       coalesce(a.dropped, 0)::bigint AS dropped,
       coalesce(a.timeouts, 0)::bigint AS timeouts
FROM flows f
FULL OUTER JOIN agg a ON a.flow_id = f.id
WHERE @after::text = '' OR coalesce(f.id, a.flow_id) < @after
ORDER BY 1 DESC
LIMIT @lim;

-- name: FlowStepStats :many
WITH ev AS (
    SELECT flow_id, session_id, kind, step_no, at, id,
           count(*) FILTER (WHERE kind = 'started')
               OVER (PARTITION BY flow_id, session_id ORDER BY at, id) AS inst
    FROM flow_events fe
    WHERE fe.tenant_id = @tenant_id AND fe.flow_id = ANY(@flow_ids::text[]) AND fe.at >= @from_time
), inst AS (
    SELECT flow_id, session_id, inst,
           (array_agg(step_no ORDER BY at DESC, id DESC) FILTER (WHERE kind = 'step'))[1] AS last_step,
           coalesce((array_agg(kind ORDER BY at DESC, id DESC) FILTER (WHERE kind NOT IN ('started', 'step')))[1] = 'completed', false) AS completed
    FROM ev
    WHERE inst > 0
    GROUP BY flow_id, session_id, inst
    HAVING min(at) FILTER (WHERE kind = 'started') < @to_time
), entered AS (
    SELECT DISTINCT ev.flow_id, ev.session_id, ev.inst, ev.step_no
    FROM ev
    JOIN inst USING (flow_id, session_id, inst)
    WHERE ev.kind = 'step'
)
SELECT e.flow_id::text AS flow_id,
       e.step_no::integer AS step_no,
       count(*)::bigint AS entered,
       (count(*) FILTER (WHERE i.last_step = e.step_no AND NOT i.completed))::bigint AS drop_off
FROM entered e
JOIN inst i USING (flow_id, session_id, inst)
GROUP BY e.flow_id, e.step_no
ORDER BY e.flow_id, e.step_no;
