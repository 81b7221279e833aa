package operate

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flags may come before or after the positional argument; "--" ends them.
func TestCLIParseArgs(t *testing.T) {
	c := cli{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	for _, args := range [][]string{
		{"docs", "--kb", "kb_1", "--tenant", "acme"},
		{"--kb", "kb_1", "docs", "--tenant", "acme"},
		{"--kb=kb_1", "--tenant=acme", "docs"},
	} {
		fs := c.flagSet("ingest", "", "")
		kb, tenant := fs.String("kb", "", ""), fs.String("tenant", "", "")
		pos, err := parseArgs(fs, args)
		require.NoError(t, err, "%v", args)
		assert.Equal(t, []string{"docs"}, pos, "%v", args)
		assert.Equal(t, "kb_1", *kb, "%v", args)
		assert.Equal(t, "acme", *tenant, "%v", args)
	}
	fs := c.flagSet("ingest", "", "")
	kb := fs.String("kb", "", "")
	pos, err := parseArgs(fs, []string{"--kb", "kb_1", "--", "--odd-folder", "two"})
	require.NoError(t, err)
	assert.Equal(t, []string{"--odd-folder", "two"}, pos)
	assert.Equal(t, "kb_1", *kb)
}
