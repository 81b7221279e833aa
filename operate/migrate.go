package operate

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/store/pg"
)

// migrate implements `assistant migrate [--status]`: applies the pending
// migrations (as the server does at start) and reports what it applied
// and what is pending; --status only reports.
func (c cli) migrate(ctx context.Context, args []string) int {
	fs := c.flagSet("migrate", "migrate [--status]",
		"Applies the database migrations in schema/ and exits, listing those it applied.\n"+
			"Replicas starting at the same time wait for each other (an advisory lock).")
	statusOnly := fs.Bool("status", false, "only report applied and pending migrations; apply nothing")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 0 {
		return c.usageError("migrate", "takes no arguments, got %q", pos[0])
	}
	mig, err := c.OpenMigrator(ctx, c.stderr)
	if err != nil {
		return c.fail("migrate", err)
	}
	defer mig.Close()
	m, log := mig.Migrator, mig.Log
	before, err := m.Status(ctx)
	if err != nil {
		return c.fail("migrate", err)
	}
	if *statusOnly {
		c.printMigrations(before, nil)
		return exitOK
	}
	n, upErr := m.Up(ctx)
	log.Debug("migrations applied", "count", n)
	after, err := m.Status(ctx)
	if err != nil {
		return c.fail("migrate", err)
	}
	c.printMigrations(after, before)
	if upErr != nil {
		return c.fail("migrate", upErr)
	}
	return exitOK
}

// printMigrations reports the database's version, the migrations applied
// since before (when given) and those still pending.
func (c cli) printMigrations(now, before []pg.MigrationState) {
	was := make(map[int64]bool, len(before))
	for _, m := range before {
		was[m.Version] = m.Applied
	}
	var version int64
	var applied, pending []string
	for _, m := range now {
		switch {
		case m.Applied && before != nil && !was[m.Version]:
			applied = append(applied, m.Name)
			version = m.Version
		case m.Applied:
			version = m.Version
		default:
			pending = append(pending, m.Name)
		}
	}
	if before != nil {
		fmt.Fprintf(c.stdout, "applied %d migration(s)\n%s", len(applied), joinLines(applied))
	}
	fmt.Fprintf(c.stdout, "database at version %d; %d pending\n%s", version, len(pending), joinLines(pending))
}
