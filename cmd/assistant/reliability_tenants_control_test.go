package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// controlExceptions are the replayed operations whose control cannot be a
// 2xx with tenant A's own key, and why; the control of each still runs,
// with the root key in tenant A, and must be a 2xx.
func controlExceptions() map[string]string {
	return map[string]string{
		"updateTenant": "platform keys only (contract): a key bound to A gets 403, so the control uses the root key",
	}
}

// controlRun sends every case's request as tenant A, in an order where no
// request breaks a later one (controlRank; deletes in the reverse order the
// fixtures were made, after the index jobs are idle), and lists those that
// did not succeed.
func (e *env) controlRun(t *testing.T, spec specOps, cases []replayCase, a *tenantFixtures, keyA string) ([]string, int) {
	t.Helper()
	ordered := slices.Clone(cases)
	slices.SortStableFunc(ordered, func(x, y replayCase) int {
		return cmp.Or(cmp.Compare(x.op.controlRank(), y.op.controlRank()),
			cmp.Compare(a.deleteOrder(y.op), a.deleteOrder(x.op)))
	})
	var failed []string
	waited := false
	for i, c := range ordered {
		if c.op.Method == "DELETE" && !waited {
			e.waitIndexIdle(t, a.tenant)
			waited = true
		}
		key := keyA
		if _, ok := controlExceptions()[c.op.ID]; ok {
			key = ""
		}
		if c.op.ID == "resolveHandoff" {
			// releaseHandoff (before it in the contract) gave the session
			// back to the bot: an agent claims it again (the customer asks
			// again) so that it can be resolved.
			e.do(req{method: "POST", path: "/api/v1/chat/sessions/" + a.ids["sessionId"] + "/messages", key: keyA, tenant: a.tenant,
				body: map[string]any{"message": "I want to talk to a human"}})
			e.do(req{method: "POST", path: "/api/v1/admin/handoffs/" + a.ids["sessionId"] + "/claim", key: keyA, tenant: a.tenant,
				body: map[string]any{"agentId": "agent-dana"}})
		}
		r := c.build(t, e, spec, a.idSource, 1000+i)
		got := e.sendWire(r.wire(key, a.tenant))
		if got.err != nil || got.contract != nil || got.Status < 200 || got.Status > 299 {
			failed = append(failed, fmt.Sprintf("%s: %s %s answered %d (%v %v): %.300s",
				c, r.method, r.path, got.Status, got.err, got.contract, got.Body))
		}
	}
	return failed, len(ordered)
}

// deleteOrder is where the resource a delete removes was created, so that
// deletes run newest first (a document before its knowledge base).
func (f *tenantFixtures) deleteOrder(op specOp) int {
	if op.Method != "DELETE" {
		return 0
	}
	for _, p := range op.params("path") {
		if at := f.createdAt(op.Path, p.Name); at >= 0 {
			return at
		}
	}
	return 0
}

// waitIndexIdle waits until no index job of tenant is queued or running.
func (e *env) waitIndexIdle(t *testing.T, tenant string) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := e.db.QueryRow(context.Background(),
			"SELECT count(*) FROM index_jobs WHERE tenant_id = $1 AND state NOT IN ('succeeded', 'failed')", tenant).Scan(&n)
		return err == nil && n == 0
	}, 30*time.Second, 20*time.Millisecond, "index jobs of %s never finished", tenant)
}

// tenantSnapshot is every row of the tenant's data as text, per table: the
// tenant's row and every row of every table with a tenant_id column, in a
// deterministic order.
func tenantSnapshot(t *testing.T, e *env, tenant string) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := e.db.Query(ctx, `SELECT DISTINCT table_name::text FROM information_schema.columns
		WHERE table_schema = current_schema() AND column_name = 'tenant_id' ORDER BY 1`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, tables)
	out := map[string]string{}
	for _, table := range append(tables, "tenants") {
		column := "tenant_id"
		if table == "tenants" {
			column = "id"
		}
		var text string
		q := fmt.Sprintf(`SELECT coalesce(string_agg(t::text, E'\n' ORDER BY t::text), '') FROM %s t WHERE %s = $1`,
			pgx.Identifier{table}.Sanitize(), column)
		require.NoError(t, e.db.QueryRow(ctx, q, tenant).Scan(&text), table)
		out[table] = text
	}
	return out
}

// snapshotDiff names the tables whose rows changed, with the first
// differing line.
func snapshotDiff(before, after map[string]string) []string {
	var out []string
	for _, table := range sortedMapKeys(before) {
		if before[table] == after[table] {
			continue
		}
		b, a := strings.Split(before[table], "\n"), strings.Split(after[table], "\n")
		i := 0
		for i < len(b) && i < len(a) && b[i] == a[i] {
			i++
		}
		line := func(s []string) string {
			if i < len(s) {
				return s[i]
			}
			return "(none)"
		}
		out = append(out, fmt.Sprintf("tenant A's %s changed during B's replay: %d rows → %d; first difference: %.300s → %.300s",
			table, len(b), len(a), line(b), line(a)))
	}
	return out
}
