package qdrant

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults for the zero values of Config.
const (
	DefaultCollection = "assistant_chunks"
	DefaultTimeout    = 10 * time.Second
	// defaultPort is Qdrant's gRPC port (6333 is its REST port).
	defaultPort = 6334
)

// Config says where Qdrant is and how the collection looks.
type Config struct {
	// URL is the gRPC endpoint: "http://qdrant:6334", "https://…" (TLS),
	// or a bare "qdrant:6334"; the port defaults to 6334.
	URL string
	// APIKey is sent with every call when set.
	APIKey string
	// Collection defaults to DefaultCollection.
	Collection string
	// Dims is the length of every vector (768 for the default embedder).
	Dims int
	// Timeout bounds each call to Qdrant (one batch of an upsert);
	// defaults to DefaultTimeout.
	Timeout time.Duration
	// Sharding, ShardNumber and ReplicationFactor shape a collection that
	// New creates (see Sharding); an existing collection keeps its own.
	Sharding Sharding
	// ShardNumber is the number of shards of a new auto-sharded
	// collection, or of the shared shard key of a tiered one (0: Qdrant's
	// default, 1).
	ShardNumber uint32
	// ReplicationFactor is how many copies of every shard Qdrant keeps (0:
	// Qdrant's default, 1); 2 or more survives the loss of a node.
	ReplicationFactor uint32
}

// Sharding is how a new collection spreads its points over shards.
type Sharding string

const (
	// ShardingAuto (the default, also for "") lets Qdrant place points on
	// ShardNumber shards by id: every search asks every shard.
	ShardingAuto Sharding = "auto"
	// ShardingTiered makes the collection user-sharded: every tenant's
	// points go to the shared shard key (SharedShardKey) until the tenant
	// is promoted to a shard key of its own (PromoteTenant), and every
	// request names the tenant's key with the shared one as its fallback,
	// so a replica needs to know nothing about which tenants are promoted.
	ShardingTiered Sharding = "tiered"
)

// endpoint is a parsed Config.URL.
type endpoint struct {
	host string
	port int
	tls  bool
}

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, endpoint, error) {
	if c.Dims <= 0 {
		return c, endpoint{}, fmt.Errorf("qdrant: Dims must be positive, got %d", c.Dims)
	}
	if c.Collection == "" {
		c.Collection = DefaultCollection
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch c.Sharding {
	case "":
		c.Sharding = ShardingAuto
	case ShardingAuto, ShardingTiered:
	default:
		return c, endpoint{}, fmt.Errorf("qdrant: Sharding must be %q or %q, got %q", ShardingAuto, ShardingTiered, c.Sharding)
	}
	ep, err := parseURL(c.URL)
	return c, ep, err
}

// parseURL reads "scheme://host:port", "host:port" or "host".
func parseURL(raw string) (endpoint, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return endpoint{}, fmt.Errorf("qdrant: the URL is empty")
	}
	ep := endpoint{port: defaultPort}
	hostport := raw
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return endpoint{}, fmt.Errorf("qdrant: bad URL %q: %w", raw, err)
		}
		switch u.Scheme {
		case "http", "grpc":
		case "https", "grpcs":
			ep.tls = true
		default:
			return endpoint{}, fmt.Errorf("qdrant: URL %q: scheme must be http or https", raw)
		}
		if u.Path != "" && u.Path != "/" {
			return endpoint{}, fmt.Errorf("qdrant: URL %q: gRPC takes no path", raw)
		}
		hostport = u.Host
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: the whole thing is the host ("[::1]" loses its brackets).
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	} else {
		p, err := strconv.Atoi(port)
		if err != nil || p <= 0 || p > 65535 {
			return endpoint{}, fmt.Errorf("qdrant: URL %q: bad port %q", raw, port)
		}
		ep.port = p
	}
	if host == "" {
		return endpoint{}, fmt.Errorf("qdrant: URL %q names no host", raw)
	}
	ep.host = host
	return ep, nil
}
