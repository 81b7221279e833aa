package remote

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestValidate(t *testing.T) {
	good := Config{Kind: KindOpenAICompatible, BaseURL: "https://api.openai.com/v1", Model: openModel, APIKey: testKey}
	require.NoError(t, good.Validate())
	require.NoError(t, Config{Kind: KindOllama, BaseURL: "http://127.0.0.1:11434/", Model: ollModel}.Validate())
	require.NoError(t, Config{Kind: KindOpenAICompatible, BaseURL: "http://vllm:8000/v1", Model: "bge-m3"}.Validate(), "keyless servers")

	cases := []struct {
		field  string
		mutate func(*Config)
	}{
		{"/provider", func(c *Config) { c.Kind = "offline" }},
		{"/baseUrl", func(c *Config) { c.BaseURL = "" }},
		{"/baseUrl", func(c *Config) { c.BaseURL = "api.openai.com/v1" }},
		{"/baseUrl", func(c *Config) { c.BaseURL = "ftp://host/v1" }},
		{"/baseUrl", func(c *Config) { c.BaseURL = "https://u:p@host/v1" }},
		{"/baseUrl", func(c *Config) { c.BaseURL = "https://host/v1?key=x" }},
		{"/apiKey", func(c *Config) { c.APIKey = "sk-abc def" }},
		{"/apiKey", func(c *Config) { c.APIKey = testKey + "\n" }},
		{"/model", func(c *Config) { c.Model = "  " }},
		{"/dimensions", func(c *Config) { c.Dims = -1 }},
		{"/timeoutMs", func(c *Config) { c.Timeout = -time.Second }},
		{"/timeoutMs", func(c *Config) { c.Timeout = time.Hour }},
		{"/retries", func(c *Config) { c.Retries = 11 }},
		{"/batchSize", func(c *Config) { c.BatchSize = 4096 }},
		{"/concurrency", func(c *Config) { c.Concurrency = -1 }},
	}
	for _, tc := range cases {
		c := good
		tc.mutate(&c)
		err := c.Validate()
		require.Error(t, err, tc.field)
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		var de *domain.Error
		require.ErrorAs(t, err, &de)
		require.Len(t, de.Fields, 1, tc.field)
		assert.Equal(t, tc.field, de.Fields[0].Field)
		assertNoKey(t, err)

		_, err = New(c, nil)
		assert.Error(t, err, "New validates")
	}
}

func TestDefaults(t *testing.T) {
	e, err := New(Config{Kind: KindOllama, BaseURL: "http://127.0.0.1:11434/", Model: ollModel}, nil)
	require.NoError(t, err)
	assert.Equal(t, 768, e.Dims())
	assert.Equal(t, DefaultBatchSize, e.cfg.BatchSize)
	assert.Equal(t, DefaultConcurrency, e.cfg.Concurrency)
	assert.Equal(t, DefaultTimeout, e.transport.timeout)
	assert.Equal(t, "http://127.0.0.1:11434", e.baseURL)
}
