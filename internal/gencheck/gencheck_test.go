package gencheck_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/gencheck"
)

// recorder stands in for the testing.TB the checks report to, so that a
// test can see a check fail without failing itself. FailNow ends the
// check's goroutine, as it does a test's.
type recorder struct {
	testing.TB
	mu      sync.Mutex
	errors  []string
	stopped bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) FailNow() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fail() { r.Errorf("Fail called") }

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors) > 0 || r.stopped
}

// check runs a check against a recorder and returns it once the check
// has returned or stopped.
func check(t *testing.T, fn func(testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r
}

const (
	spec = `openapi: 3.0.3
info: {title: fixture, version: "1"}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
`
	config = `# models of the fixture's contract
package: models
output: out/models.gen.go
generate:
  models: true
output-options:
  skip-prune: true
`
)

// fixtureRepo is a repository in a temporary directory, with this
// module's go.mod (for the pinned oapi-codegen), a contract, a config and
// the file oapi-codegen makes of them committed: a fresh tree. It returns
// the root.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	repo := gencheck.RepoRoot(t)
	root := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(repo, name))
		require.NoError(t, err)
		write(t, root, name, string(b))
	}
	write(t, root, "openapi/openapi.yaml", spec)
	write(t, root, "models/oapi-codegen.yaml", config)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "out"), 0o755))
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "models/oapi-codegen.yaml", "openapi/openapi.yaml")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "oapi-codegen: %s", out)
	require.Contains(t, read(t, root, "out/models.gen.go"), "type Pet struct")
	return root
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	path := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func read(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	require.NoError(t, err)
	return string(b)
}

func TestRepoRootIsTheFolderWithGoMod(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(filepath.Dir(wd)), gencheck.RepoRoot(t), "internal/gencheck is two levels down")

	root := t.TempDir()
	write(t, root, "go.mod", "module example.com/fixture\n")
	deep := filepath.Join(root, "a", "b", "c")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	t.Chdir(deep)
	assert.Equal(t, root, gencheck.RepoRoot(t))
}

func TestRepoRootStopsAtTheFilesystemRoot(t *testing.T) {
	dir := t.TempDir()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			t.Skipf("%s has a go.mod above it", dir)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	t.Chdir(dir)
	r := check(t, func(tb testing.TB) { gencheck.RepoRoot(tb) })
	assert.True(t, r.stopped)
	assert.Contains(t, strings.Join(r.errors, "\n"), "no go.mod above the test's folder")
}

func TestOapiCodegenFreshPassesOnAFreshTree(t *testing.T) {
	root := fixtureRepo(t)
	committed := read(t, root, "out/models.gen.go")
	t.Chdir(filepath.Join(root, "models")) // a test runs in its package's folder

	r := check(t, func(tb testing.TB) { gencheck.OapiCodegenFresh(tb, "models/oapi-codegen.yaml") })
	assert.False(t, r.Failed(), "errors: %v", r.errors)
	assert.Equal(t, committed, read(t, root, "out/models.gen.go"), "the check writes nothing into the tree")
	assert.Equal(t, config, read(t, root, "models/oapi-codegen.yaml"))
}

func TestOapiCodegenFreshNeverWritesOverTheCommittedFile(t *testing.T) {
	root := fixtureRepo(t)
	spaced := strings.Replace(config, "output: ", "output:   ", 1) // valid YAML all the same
	require.NotEqual(t, config, spaced)
	write(t, root, "models/oapi-codegen.yaml", spaced)
	write(t, root, "out/models.gen.go", read(t, root, "out/models.gen.go")+"\n// a hand edit\n")
	committed := read(t, root, "out/models.gen.go")
	t.Chdir(filepath.Join(root, "models"))

	r := check(t, func(tb testing.TB) { gencheck.OapiCodegenFresh(tb, "models/oapi-codegen.yaml") })
	assert.Contains(t, strings.Join(r.errors, "\n"), "out/models.gen.go is stale")
	assert.Equal(t, committed, read(t, root, "out/models.gen.go"), "the stale file is reported, not regenerated in place")
}

func TestOapiCodegenFreshReportsAStaleFile(t *testing.T) {
	cases := map[string]func(t *testing.T, root string){
		"contract changed, not regenerated": func(t *testing.T, root string) {
			write(t, root, "openapi/openapi.yaml", strings.Replace(spec, "name: {type: string}", "name: {type: string}\n        age: {type: integer}", 1))
		},
		"generated file edited by hand": func(t *testing.T, root string) {
			write(t, root, "out/models.gen.go", read(t, root, "out/models.gen.go")+"\n// a hand edit\n")
		},
	}
	for name, stale := range cases {
		t.Run(name, func(t *testing.T) {
			root := fixtureRepo(t)
			stale(t, root)
			committed := read(t, root, "out/models.gen.go")
			t.Chdir(root)

			r := check(t, func(tb testing.TB) { gencheck.OapiCodegenFresh(tb, "models/oapi-codegen.yaml") })
			assert.False(t, r.stopped, "a stale file is an error, not a failure to check")
			require.Len(t, r.errors, 1)
			assert.Contains(t, r.errors[0], "out/models.gen.go is stale: run `make generate` and commit")
			assert.Equal(t, committed, read(t, root, "out/models.gen.go"), "the check does not regenerate the committed file")
		})
	}
}

func TestOapiCodegenFreshFailsWhenItCannotCheck(t *testing.T) {
	cases := map[string]struct {
		edit func(t *testing.T, root string)
		want string
	}{
		"config names no output": {
			func(t *testing.T, root string) {
				write(t, root, "models/oapi-codegen.yaml", strings.Replace(config, "output: out/models.gen.go\n", "", 1))
			},
			"models/oapi-codegen.yaml names no `output:` file",
		},
		"committed file missing": {
			func(t *testing.T, root string) {
				require.NoError(t, os.Remove(filepath.Join(root, "out/models.gen.go")))
			},
			"no such file or directory",
		},
		"contract does not generate": {
			func(t *testing.T, root string) {
				write(t, root, "openapi/openapi.yaml", "openapi: [not, a, contract\n")
			},
			"oapi-codegen:",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := fixtureRepo(t)
			c.edit(t, root)
			t.Chdir(root)

			r := check(t, func(tb testing.TB) { gencheck.OapiCodegenFresh(tb, "models/oapi-codegen.yaml") })
			assert.True(t, r.stopped, "the check stops")
			assert.Contains(t, strings.Join(r.errors, "\n"), c.want)
		})
	}
}
