package llm

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestValidate(t *testing.T) {
	goods := []domain.LLMConfig{
		{Provider: domain.LLMOffline},
		{Provider: domain.LLMOffline, BaseURL: "not checked", Retries: 99},
		{Provider: domain.LLMOpenAI, BaseURL: "https://api.openai.com/v1", Model: openModel, APIKey: testKey, Temperature: 0.2, MaxTokens: 800, TimeoutMs: 30000, Retries: 2},
		{Provider: domain.LLMOpenAI, BaseURL: "http://vllm:8000/v1", Model: "Qwen/Qwen3-8B"}, // keyless servers
		{Provider: domain.LLMOllama, BaseURL: "http://127.0.0.1:11434/", Model: ollModel},
		{Provider: domain.LLMAzure, BaseURL: "https://contoso.openai.azure.com", Deployment: azDeployment, APIVersion: "2025-01-01-preview", APIKey: testKey},
	}
	for _, c := range goods {
		require.NoError(t, Validate(c), "%+v", c.Provider)
		_, err := New(c, nil)
		require.NoError(t, err)
	}

	good := goods[2]
	azure := goods[5]
	cases := []struct {
		field  string
		base   domain.LLMConfig
		mutate func(*domain.LLMConfig)
	}{
		{"/provider", good, func(c *domain.LLMConfig) { c.Provider = "anthropic" }},
		{"/baseUrl", good, func(c *domain.LLMConfig) { c.BaseURL = "" }},
		{"/baseUrl", good, func(c *domain.LLMConfig) { c.BaseURL = "api.openai.com/v1" }},
		{"/baseUrl", good, func(c *domain.LLMConfig) { c.BaseURL = "ftp://host/v1" }},
		{"/baseUrl", good, func(c *domain.LLMConfig) { c.BaseURL = "https://u:" + testKey + "@host/v1" }},
		{"/baseUrl", good, func(c *domain.LLMConfig) { c.BaseURL = "https://host/v1?key=x" }},
		{"/apiKey", good, func(c *domain.LLMConfig) { c.APIKey = testKey + "\n" }},
		{"/apiKey", azure, func(c *domain.LLMConfig) { c.APIKey = "" }},
		{"/model", good, func(c *domain.LLMConfig) { c.Model = "  " }},
		{"/deployment", azure, func(c *domain.LLMConfig) { c.Deployment = "" }},
		{"/deployment", azure, func(c *domain.LLMConfig) { c.Deployment = "a/../b" }},
		{"/apiVersion", azure, func(c *domain.LLMConfig) { c.APIVersion = "2024-10-21&x=y" }},
		{"/temperature", good, func(c *domain.LLMConfig) { c.Temperature = -0.1 }},
		{"/temperature", good, func(c *domain.LLMConfig) { c.Temperature = 2.5 }},
		{"/temperature", good, func(c *domain.LLMConfig) { c.Temperature = math.NaN() }},
		{"/maxTokens", good, func(c *domain.LLMConfig) { c.MaxTokens = -1 }},
		{"/timeoutMs", good, func(c *domain.LLMConfig) { c.TimeoutMs = -1 }},
		{"/timeoutMs", good, func(c *domain.LLMConfig) { c.TimeoutMs = 3_600_000 }},
		{"/retries", good, func(c *domain.LLMConfig) { c.Retries = 11 }},
	}
	for _, tc := range cases {
		c := tc.base
		tc.mutate(&c)
		err := Validate(c)
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
	m, err := New(domain.LLMConfig{Provider: domain.LLMOllama, BaseURL: "http://127.0.0.1:11434/", Model: ollModel}, nil)
	require.NoError(t, err)
	c := m.(*client)
	assert.Equal(t, DefaultTimeout, c.timeout)
	assert.Equal(t, DefaultMaxTokens, c.maxTokens)
	assert.Equal(t, 0, c.retries)
	assert.Equal(t, "http://127.0.0.1:11434/api/chat", c.proto.endpoint())

	m, err = New(domain.LLMConfig{Provider: domain.LLMAzure, BaseURL: "https://contoso.openai.azure.com/", Deployment: "gpt-4o", APIVersion: "2024-10-21", APIKey: testKey}, nil)
	require.NoError(t, err)
	assert.Equal(t, "https://contoso.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21", m.(*client).proto.endpoint())
	assert.Equal(t, "azure_openai:gpt-4o", m.Model())
}
