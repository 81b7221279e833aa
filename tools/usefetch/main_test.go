package main

import (
	"testing"

	"github.com/cs-assistant/assistant/providers/embed/use"
	"github.com/stretchr/testify/assert"
)

func TestRegistryFromEnv(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no setting: the default registry", nil, use.DefaultRegistry},
		{"npm's lower-case setting", map[string]string{"npm_config_registry": "http://mirror.test/"}, "http://mirror.test/"},
		{"npm's upper-case setting", map[string]string{"NPM_CONFIG_REGISTRY": "http://other.test/"}, "http://other.test/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, registryFromEnv(func(k string) string { return tc.env[k] }))
		})
	}
}

func TestRunRejectsArguments(t *testing.T) {
	assert.Error(t, run([]string{"extra"}))
}
