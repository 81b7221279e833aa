package config

import (
	"fmt"
	"strconv"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/qdrant"
)

// Qdrant is the Qdrant store's configuration (QDRANT_*), used when
// QdrantURL is set.
func (c Config) Qdrant() qdrant.Config {
	return qdrant.Config{URL: c.QdrantURL, APIKey: c.QdrantAPIKey, Collection: c.QdrantCollection, Dims: domain.EmbeddingDims,
		Sharding: c.QdrantSharding, ShardNumber: c.QdrantShards, ReplicationFactor: c.QdrantReplicationFactor}
}

// loadQdrantLayout reads how a new Qdrant collection is laid out:
// QDRANT_COLLECTION, QDRANT_SHARDING (auto or tiered), QDRANT_SHARDS and
// QDRANT_REPLICATION_FACTOR.
func loadQdrantLayout(c *Config, getenv func(string) string) error {
	c.QdrantCollection = getenv("QDRANT_COLLECTION")
	switch s := qdrant.Sharding(getenv("QDRANT_SHARDING")); s {
	case "", qdrant.ShardingAuto, qdrant.ShardingTiered:
		c.QdrantSharding = s
	default:
		return fmt.Errorf("QDRANT_SHARDING: want %s or %s, got %q", qdrant.ShardingAuto, qdrant.ShardingTiered, s)
	}
	for _, v := range []struct {
		name string
		to   *uint32
	}{{"QDRANT_SHARDS", &c.QdrantShards}, {"QDRANT_REPLICATION_FACTOR", &c.QdrantReplicationFactor}} {
		raw := getenv(v.name)
		if raw == "" {
			continue
		}
		n, err := strconv.ParseUint(raw, 10, 32)
		if err != nil || n == 0 || n > 64 {
			return fmt.Errorf("%s: want 1 to 64, got %q", v.name, raw)
		}
		*v.to = uint32(n)
	}
	return nil
}
