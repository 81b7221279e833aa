package operate

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest"
)

// reindex implements `assistant reindex --stale|--all [--kb ID] [--tenant
// T]` with ingest.Service.ReindexAll, the implementation behind POST
// /admin/kb/reindex, per tenant; the jobs run on workers in this process
// as well as on any running server's.
func (c cli) reindex(ctx context.Context, args []string) int {
	const cmd = "reindex"
	fs := c.flagSet(cmd, "reindex --stale|--all [--kb ID] [--tenant T]",
		"Queues a new index job for documents and waits until each is indexed, showing\n"+
			"progress on stderr: with --stale those left stale by an embedding model change\n"+
			"(PUT /admin/embedding/config), with --all every document. Without --tenant and\n"+
			"--kb, every active tenant's. Documents whose job is already queued or running are\n"+
			"left alone. Exits 1 when any job failed.")
	stale := fs.Bool("stale", false, "only documents indexed with an embedding model the tenant no longer uses")
	all := fs.Bool("all", false, "every document")
	kbID := fs.String("kb", "", "only this knowledge base's documents (kb_…)")
	tenantFlag := fs.String("tenant", "", "only this tenant's documents; every active tenant's when left out")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	switch {
	case len(pos) > 0:
		return c.usageError(cmd, "takes no arguments, got %q", pos[0])
	case *stale == *all:
		return c.usageError(cmd, "say which documents: --stale or --all")
	}
	tenant, err := parseTenant(*tenantFlag)
	if err != nil {
		return c.usageError(cmd, "%v", err)
	}

	prog := newProgress(c.stderr, c.Getenv, cmd)
	a, err := c.OpenIndexing(ctx, prog)
	if err != nil {
		return c.fail(cmd, err)
	}
	defer a.Close()
	tenants, err := reindexTenants(ctx, a, tenant, *kbID)
	if err != nil {
		return c.fail(cmd, err)
	}

	tracker := ingest.NewTracker(a.Store)
	names := make(map[string]string) // job id → document
	alreadyQueued := 0
	scope := ingest.ReindexScope{KBID: *kbID, StaleOnly: *stale}
	for _, t := range tenants {
		res, err := a.Ingest.ReindexAll(ctx, t, scope)
		if err != nil {
			return c.fail(cmd, fmt.Errorf("tenant %s: %s (%d job(s) queued before; they go on)", t, describe(err), len(names)))
		}
		tracker.Add(res.Jobs...)
		for i, j := range res.Jobs {
			d := res.Documents[i]
			names[j.ID] = fmt.Sprintf("%s %s (tenant %s, %s)", d.ID, d.Name, t, d.KBID)
		}
		alreadyQueued += res.AlreadyQueued
	}
	total := len(names)
	show := func(t ingest.Tally) {
		prog.update(counts{Total: total, Sent: total, Succeeded: t.Succeeded, Failed: t.Failed})
	}
	return c.finish(ctx, jobs{cmd: cmd, prog: prog, tracker: tracker, names: names}, show, nil, nil,
		func(t ingest.Tally, _ int) string {
			return fmt.Sprintf("%d document(s) queued, %d indexed, %d failed; %d already queued or running, left alone\n",
				total, t.Succeeded, t.Failed, alreadyQueued)
		})
}

// reindexTenants picks the tenants to re-index in: the one named (or the
// knowledge base's), else every active tenant.
func reindexTenants(ctx context.Context, a *Core, tenant domain.TenantID, kbID string) ([]domain.TenantID, error) {
	if kbID != "" {
		t, err := knowledgeBaseTenant(ctx, a, tenant, kbID)
		return []domain.TenantID{t}, err
	}
	if tenant != "" {
		return []domain.TenantID{tenant}, activeTenant(ctx, a, tenant)
	}
	var out []domain.TenantID
	err := eachActiveTenant(ctx, a, func(t domain.TenantID) (bool, error) {
		out = append(out, t)
		return true, nil
	})
	return out, err
}
