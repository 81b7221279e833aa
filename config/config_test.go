package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigDefaults(t *testing.T) {
	c, err := Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}))
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", c.Addr)
	assert.Equal(t, ".data", c.DataDir)
	assert.EqualValues(t, 1<<20, c.MaxBodyBytes)
	assert.Equal(t, "http://localhost:3000", c.FrontendBaseURL)
	assert.Equal(t, slog.LevelInfo, c.LogLevel)
	assert.Equal(t, "json", c.LogFormat)
	assert.Equal(t, []string{"http://localhost:3000"}, c.CORSOrigins, "the front-end's origin")
	assert.Equal(t, 30*time.Second, c.BodyReadTimeout)
	assert.EqualValues(t, 2<<30, c.IndexMemoryBytes, "the embedded index's bound")
	assert.EqualValues(t, 64<<20, c.ChunkCacheBytes, "the quoted chunks' cache")
	assert.Empty(t, c.IndexDir, "the system's temp directory")
	assert.False(t, c.SentenceEncoder, "the offline answerer chooses by words unless told otherwise")
	assert.Equal(t, "eng+chi_sim", c.OCRLanguages)

	c, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app",
		"ASSISTANT_INDEX_DIR": "/var/lib/assistant/index", "ASSISTANT_CHUNK_CACHE_BYTES": "1048576",
		"ASSISTANT_SENTENCE_ENCODER": "on"}))
	require.NoError(t, err)
	assert.True(t, c.SentenceEncoder)
	assert.Equal(t, "/var/lib/assistant/index", c.IndexDir)
	assert.EqualValues(t, 1<<20, c.ChunkCacheBytes)

	c, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app",
		"FRONTEND_BASE_URL": "https://help.example.com/app/", "ASSISTANT_CORS_ORIGINS": ""}))
	require.NoError(t, err)
	assert.Equal(t, []string{"https://help.example.com"}, c.CORSOrigins)
	c, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app",
		"ASSISTANT_CORS_ORIGINS": " https://a.example.com, http://localhost:5173/ "}))
	require.NoError(t, err)
	assert.Equal(t, []string{"https://a.example.com", "http://localhost:5173"}, c.CORSOrigins)
	c, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app", "ASSISTANT_CORS_ORIGINS": "none"}))
	require.NoError(t, err)
	assert.Empty(t, c.CORSOrigins)
}

func TestBadConfigNamesTheVariable(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}
	cases := map[string]string{
		"ASSISTANT_ADDR":               "8080",
		"DATABASE_URL":                 "",
		"ASSISTANT_MAX_BODY_BYTES":     "lots",
		"ASSISTANT_INDEX_MEMORY_BYTES": "0",
		"ASSISTANT_CHUNK_CACHE_BYTES":  "-5",
		"ASSISTANT_DEFAULT_API_KEY":    "short",
		"FRONTEND_BASE_URL":            "localhost:3000",
		"LOG_LEVEL":                    "chatty",
		"LOG_FORMAT":                   "xml",
		"ASSISTANT_SHUTDOWN_TIMEOUT":   "soon",
		"ASSISTANT_BODY_READ_TIMEOUT":  "-1s",
		"ASSISTANT_CORS_ORIGINS":       "https://a.example.com/path",
		"ASSISTANT_SENTENCE_ENCODER":   "yes",
		"ASSISTANT_METRICS_ADDR":       "9090",
		"ASSISTANT_OCR_LANGUAGES":      "eng+chi sim",
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			env[name] = value
			_, err := Load(envOf(env))
			require.Error(t, err)
			assert.Regexp(t, "^"+name+": ", err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

func TestConfigLogsWithoutSecrets(t *testing.T) {
	c, err := Load(envOf(map[string]string{
		"DATABASE_URL":              "postgres://app:hunter2@db:5432/app",
		"ASSISTANT_DEFAULT_API_KEY": "ak_0123456789abcdefghijABCDEFGHIJ0123456789x",
	}))
	require.NoError(t, err)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	assert.NotContains(t, buf.String(), "hunter2")
	assert.NotContains(t, buf.String(), "ak_0123456789")
	assert.Contains(t, buf.String(), "db:5432")

	c.DatabaseURL = "host=db password=hunter2"
	buf.Reset()
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	assert.NotContains(t, buf.String(), "hunter2")
}

// TestDefaultAPIKeyFromFile: ASSISTANT_DEFAULT_API_KEY_FILE (a container
// secret) gives the default key, its final newline dropped; a bad file or
// both variables at once is an error naming the _FILE variable, in one
// line, without the file's content.
func TestDefaultAPIKeyFromFile(t *testing.T) {
	const secret = "ak_0123456789abcdefghijABCDEFGHIJ0123456789x"
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		return path
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return envOf(m)
	}

	c, err := Load(env("ASSISTANT_DEFAULT_API_KEY_FILE", write("key", secret+"\n")))
	require.NoError(t, err)
	assert.Equal(t, secret, c.DefaultAPIKey)

	bad := map[string]func(string) string{
		"missing file":       env("ASSISTANT_DEFAULT_API_KEY_FILE", filepath.Join(dir, "absent")),
		"empty file":         env("ASSISTANT_DEFAULT_API_KEY_FILE", write("empty", "\n")),
		"malformed key":      env("ASSISTANT_DEFAULT_API_KEY_FILE", write("short", "ak_short\n")),
		"not a secret":       env("ASSISTANT_DEFAULT_API_KEY_FILE", write("big", strings.Repeat("ak_x", 2000))),
		"both":               env("ASSISTANT_DEFAULT_API_KEY_FILE", write("key2", secret), "ASSISTANT_DEFAULT_API_KEY", secret),
		"a folder, not file": env("ASSISTANT_DEFAULT_API_KEY_FILE", dir),
	}
	for name, getenv := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := Load(getenv)
			require.Error(t, err)
			assert.Regexp(t, "^ASSISTANT_DEFAULT_API_KEY_FILE: ", err.Error())
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.NotContains(t, err.Error(), "ak_short", "the file's content is not repeated")
		})
	}
}

// The database URL (it holds the password) and the Qdrant key may come
// from files, as container secrets do; both forms at once are refused.
func TestDatabaseURLAndQdrantKeyFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		return path
	}
	c, err := Load(envOf(map[string]string{
		"DATABASE_URL_FILE":   write("db", "postgres://assistant:s3cret@postgres:5432/assistant?sslmode=disable\n"),
		"QDRANT_API_KEY_FILE": write("qdrant", "qk-0123456789\n"),
	}))
	require.NoError(t, err)
	assert.Equal(t, "postgres://assistant:s3cret@postgres:5432/assistant?sslmode=disable", c.DatabaseURL)
	assert.Equal(t, "qk-0123456789", c.QdrantAPIKey)

	_, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app", "DATABASE_URL_FILE": write("db2", "postgres://x@y/z")}))
	require.Error(t, err)
	assert.Regexp(t, "^DATABASE_URL_FILE: ", err.Error())
	_, err = Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app", "QDRANT_API_KEY_FILE": filepath.Join(dir, "absent")}))
	require.Error(t, err)
	assert.Regexp(t, "^QDRANT_API_KEY_FILE: ", err.Error())
}
