package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// createdKey reads the id and the secret `keys create` prints.
func createdKey(t *testing.T, r cliRun) (id, secret string) {
	t.Helper()
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	m := regexp.MustCompile(`^id: (key_\S+)\nsecret: (ak_\S+)\n$`).FindStringSubmatch(r.stdout)
	require.Len(t, m, 3, "stdout: %q", r.stdout)
	return m[1], m[2]
}

// listed returns the `keys list` row of a key, split into its columns.
func listed(t *testing.T, out, id string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == id {
			return f
		}
	}
	return nil
}

func TestCLIKeys(t *testing.T) {
	e := newEnv(t)
	kbs := "/api/v1/admin/kb/knowledge-bases"

	id, secret := createdKey(t, e.cli(t, "keys", "create", "--name", "acme-admin", "--tenant", "acme", "--scopes", "admin", "--expires", "720h"))
	got := e.cli(t, "keys", "create", "--name", "again", "--tenant", "acme", "--scopes", "admin")
	assert.Contains(t, got.stderr, "shown only this once")
	_, other := createdKey(t, got)
	assert.NotEqual(t, secret, other)

	t.Run("the created secret authenticates against the running service", func(t *testing.T) {
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: kbs, key: secret, tenant: "acme"}).Status)
		r := e.do(req{method: "GET", path: kbs, key: secret, tenant: "globex"})
		assert.Equal(t, "tenant_forbidden", r.Code(t), "bound to its tenant")
		r = e.do(req{method: "POST", path: "/api/v1/chat/sessions", key: secret, tenant: "acme", body: map[string]any{}})
		assert.Equal(t, "forbidden", r.Code(t), "only the scopes asked for")
	})
	t.Run("list shows the key without its secret", func(t *testing.T) {
		r := e.cli(t, "keys", "list", "--tenant", "acme")
		require.Equal(t, exitOK, r.code, "%s", r.stderr)
		assert.NotContains(t, r.stdout, secret)
		row := listed(t, r.stdout, id)
		require.Len(t, row, 9, "%s", r.stdout)
		assert.Equal(t, []string{id, "acme-admin", "acme", "admin", secret[:len(row[4])]}, row[:5])
		expires, err := time.Parse(time.RFC3339, row[6])
		require.NoError(t, err, row[6])
		assert.WithinDuration(t, time.Now().Add(720*time.Hour), expires, time.Minute)
		assert.Equal(t, "active", row[8])

		all := e.cli(t, "keys", "list")
		require.Equal(t, exitOK, all.code, "%s", all.stderr)
		assert.NotNil(t, listed(t, all.stdout, id), "every tenant's keys without --tenant")
		assert.Contains(t, all.stdout, "(platform)", "the default platform key")
		none := e.cli(t, "keys", "list", "--tenant", "globex")
		assert.Nil(t, listed(t, none.stdout, id), "another tenant's keys are not listed")
	})
	t.Run("revoke makes the secret 401 on the running service", func(t *testing.T) {
		r := e.cli(t, "keys", "revoke", id)
		require.Equal(t, exitOK, r.code, "%s", r.stderr)
		assert.Equal(t, "revoked "+id+"\n", r.stdout)
		// The service drops its cached key when the revocation's
		// notification arrives.
		require.Eventually(t, func() bool {
			return e.do(req{method: "GET", path: kbs, key: secret, tenant: "acme"}).Status == http.StatusUnauthorized
		}, 10*time.Second, 20*time.Millisecond)
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: kbs, key: other, tenant: "acme"}).Status, "other keys still work")

		assert.Nil(t, listed(t, e.cli(t, "keys", "list").stdout, id), "revoked keys are left out")
		row := listed(t, e.cli(t, "keys", "list", "--revoked").stdout, id)
		require.NotNil(t, row)
		assert.Equal(t, "revoked", row[len(row)-1])
	})
	t.Run("a platform key acts in any tenant", func(t *testing.T) {
		_, platform := createdKey(t, e.cli(t, "keys", "create", "--name", "ops"))
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: kbs, key: platform, tenant: "globex"}).Status)
		r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", key: platform, tenant: "globex", body: map[string]any{}})
		assert.Equal(t, http.StatusCreated, r.Status, "admin and chat by default: %s", r.Body)
	})
	t.Run("mistakes are named and change nothing", func(t *testing.T) {
		cases := []struct {
			name string
			args []string
			want string
		}{
			{"an unknown scope", []string{"keys", "create", "--name", "x", "--scopes", "admin,root"}, `/scopes: unknown scope "root": want admin or chat.`},
			{"a name too long", []string{"keys", "create", "--name", strings.Repeat("n", 101)}, "/name: must be 1 to 100 characters"},
			{"an unknown key", []string{"keys", "revoke", "key_00000000000000000000000000000000"}, "key_00000000000000000000000000000000: API key not found."},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.cli(t, c.args...)
				assert.Equal(t, exitFail, r.code)
				assert.Empty(t, r.stdout)
				assert.Contains(t, r.stderr, c.want)
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			})
		}
	})
}
