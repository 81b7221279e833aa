package operate

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
)

// operator is the caller the commands act as: the platform, like a
// platform key, since whoever runs the binary holds the database.
func operator() domain.Principal {
	return domain.Principal{KeyID: "cli", Scopes: []domain.Scope{domain.ScopeAdmin, domain.ScopeChat}}
}

// keys implements `assistant keys create|list|revoke` over access.Keys,
// the service behind /admin/api-keys.
func (c cli) keys(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return c.usageError("keys", "want a subcommand: create, list or revoke")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "create":
		return c.keysCreate(ctx, rest)
	case "list":
		return c.keysList(ctx, rest)
	case "revoke":
		return c.keysRevoke(ctx, rest)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(c.stdout, "Usage: assistant keys create|list|revoke [flags]\n\nRun 'assistant keys SUBCOMMAND -h' for its flags.\n")
		return exitOK
	default:
		return c.usageError("keys", "unknown subcommand %q: want create, list or revoke", sub)
	}
}

// openKeys opens what the key commands need; on failure it returns nil
// and the exit code.
func (c cli) openKeys(ctx context.Context, cmd string) (*Core, int) {
	a, err := c.OpenCore(ctx, c.stderr)
	if err != nil {
		return nil, c.fail(cmd, err)
	}
	return a, exitOK
}

func (c cli) keysCreate(ctx context.Context, args []string) int {
	const cmd = "keys create"
	fs := c.flagSet(cmd, "keys create --name N [--tenant T] [--scopes admin,chat] [--expires 720h]",
		"Issues an API key and prints its id and its secret. The secret is not stored\n"+
			"(only its hash): this is the only time it is shown.")
	name := fs.String("name", "", "what the key is for, 1 to 100 characters (required)")
	tenantFlag := fs.String("tenant", "", "bind the key to this tenant (created on first use); a platform key when left out")
	scopes := fs.String("scopes", "admin,chat", "comma-separated scopes: admin (/admin, /strategy) and chat (/chat)")
	expires := fs.Duration("expires", 0, "lifetime, such as 720h; never expires when left out")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	switch {
	case len(pos) > 0:
		return c.usageError(cmd, "takes no arguments, got %q", pos[0])
	case *name == "":
		return c.usageError(cmd, "--name is required")
	case *expires < 0:
		return c.usageError(cmd, "--expires: want a positive duration such as 720h, got %s", *expires)
	}
	tenant, err := parseTenant(*tenantFlag)
	if err != nil {
		return c.usageError(cmd, "%v", err)
	}
	in := access.CreateKeyInput{Name: *name}
	for s := range strings.SplitSeq(*scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			in.Scopes = append(in.Scopes, domain.Scope(s))
		}
	}
	if tenant != "" {
		in.TenantID = &tenant
	}
	if *expires > 0 {
		at := time.Now().Add(*expires)
		in.ExpiresAt = &at
	}

	a, code := c.openKeys(ctx, cmd)
	if a == nil {
		return code
	}
	defer a.Close()
	key, secret, err := a.Keys.Create(ctx, operator(), in)
	if err != nil {
		return c.fail(cmd, err)
	}
	fmt.Fprintf(c.stdout, "id: %s\nsecret: %s\n", key.ID, secret)
	fmt.Fprintln(c.stderr, "The secret is shown only this once; keep it somewhere safe.")
	return exitOK
}

func (c cli) keysList(ctx context.Context, args []string) int {
	const cmd = "keys list"
	fs := c.flagSet(cmd, "keys list [--tenant T] [--revoked]", "Lists API keys, newest first; secrets are never shown, only their first characters.")
	tenantFlag := fs.String("tenant", "", "only keys bound to this tenant")
	revoked := fs.Bool("revoked", false, "include revoked keys")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 0 {
		return c.usageError(cmd, "takes no arguments, got %q", pos[0])
	}
	tenant, err := parseTenant(*tenantFlag)
	if err != nil {
		return c.usageError(cmd, "%v", err)
	}
	f := domain.APIKeyFilter{IncludeRevoked: *revoked}
	if tenant != "" {
		f.Tenant = &tenant
	}

	a, code := c.openKeys(ctx, cmd)
	if a == nil {
		return code
	}
	defer a.Close()
	w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tTENANT\tSCOPES\tPREFIX\tCREATED\tEXPIRES\tLAST USED\tSTATUS")
	now := time.Now()
	page := domain.PageRequest{Limit: domain.MaxPageSize}
	for {
		res, err := a.Keys.List(ctx, operator(), f, page)
		if err != nil {
			return c.fail(cmd, err)
		}
		for _, k := range res.Items {
			tenant := "(platform)"
			if k.TenantID != nil {
				tenant = string(*k.TenantID)
			}
			scopes := make([]string, len(k.Scopes))
			for i, s := range k.Scopes {
				scopes[i] = string(s)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, tenant, strings.Join(scopes, ","), k.Prefix,
				k.CreatedAt.UTC().Format(time.RFC3339), timeOr(k.ExpiresAt, "never"), timeOr(k.LastUsedAt, "never"), keyStatus(k, now))
		}
		next, ok := res.NextPage(page.Limit)
		if !ok {
			break
		}
		page = next
	}
	if err := w.Flush(); err != nil {
		return c.fail(cmd, err)
	}
	return exitOK
}

func (c cli) keysRevoke(ctx context.Context, args []string) int {
	const cmd = "keys revoke"
	fs := c.flagSet(cmd, "keys revoke ID", "Revokes an API key (key_…): it stops working at once in this process and,\n"+
		"through a change notification, in every running server.")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) != 1 {
		return c.usageError(cmd, "want one key id (key_…), got %d arguments", len(pos))
	}
	a, code := c.openKeys(ctx, cmd)
	if a == nil {
		return code
	}
	defer a.Close()
	if err := a.Keys.Revoke(ctx, operator(), pos[0]); err != nil {
		return c.fail(cmd, fmt.Errorf("%s: %s", pos[0], describe(err)))
	}
	fmt.Fprintf(c.stdout, "revoked %s\n", pos[0])
	return exitOK
}

// keyStatus says whether a key can be used.
func keyStatus(k domain.APIKey, now time.Time) string {
	switch {
	case k.RevokedAt != nil:
		return "revoked"
	case !k.Usable(now):
		return "expired"
	}
	return "active"
}

func timeOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}
