package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/store/vector/qdrant"
)

func TestConfigQdrantLayout(t *testing.T) {
	db := "postgres://u:pw@db:5432/app"
	c, err := Load(envOf(map[string]string{"DATABASE_URL": db}))
	require.NoError(t, err)
	qc := c.Qdrant()
	assert.Equal(t, qdrant.Config{Dims: 768}, qc, "Qdrant's own defaults, and the store's")

	c, err = Load(envOf(map[string]string{"DATABASE_URL": db, "QDRANT_URL": "http://qdrant:6334", "QDRANT_COLLECTION": "chunks_v2",
		"QDRANT_SHARDING": "tiered", "QDRANT_SHARDS": "2", "QDRANT_REPLICATION_FACTOR": "3"}))
	require.NoError(t, err)
	assert.Equal(t, qdrant.Config{URL: "http://qdrant:6334", Collection: "chunks_v2", Dims: 768,
		Sharding: qdrant.ShardingTiered, ShardNumber: 2, ReplicationFactor: 3}, c.Qdrant())

	for name, value := range map[string]string{"QDRANT_SHARDING": "hashed", "QDRANT_SHARDS": "0", "QDRANT_REPLICATION_FACTOR": "two"} {
		_, err = Load(envOf(map[string]string{"DATABASE_URL": db, name: value}))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), name)
	}
}
