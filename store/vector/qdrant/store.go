package qdrant

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// Store implements domain.VectorStore on one Qdrant collection. It is
// safe for concurrent use.
type Store struct {
	client     *qc.Client
	collection string
	dims       int
	timeout    time.Duration
	// cfg shapes what EnsureCollection creates; tiered is the existing
	// collection's own sharding, which every request follows.
	cfg    Config
	tiered atomic.Bool
	// stems caches the stems of the words of the texts whose sparse
	// vectors it makes (documentVector).
	stems *analysis.Stems
}

var _ domain.VectorStore = (*Store)(nil)

// New connects to Qdrant and makes sure the collection and its payload
// indexes exist (EnsureCollection). A bad Config is a plain error; an
// unreachable or too slow Qdrant is CodeUnavailable, so a caller can retry
// start-up.
func New(ctx context.Context, cfg Config) (*Store, error) {
	cfg, ep, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	host := ep.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // the client joins host and port with a colon
	}
	client, err := qc.NewClient(&qc.Config{
		Host:   host,
		Port:   ep.port,
		APIKey: cfg.APIKey,
		UseTLS: ep.tls,
		// The check calls Qdrant from inside NewClient with its own
		// one-minute timeout and only logs; New's own calls below tell
		// whether Qdrant answers, within cfg.Timeout.
		SkipCompatibilityCheck: true,
	})
	if err != nil {
		return nil, wrapErr("connect", err)
	}
	s := &Store{client: client, collection: cfg.Collection, dims: cfg.Dims, timeout: cfg.Timeout, cfg: cfg,
		stems: analysis.NewStems(analysis.StemCacheWords)}
	if err := s.EnsureCollection(ctx); err != nil {
		_ = client.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connections to Qdrant.
func (s *Store) Close() error {
	return s.client.Close()
}

// Collection returns the name of the collection.
func (s *Store) Collection() string { return s.collection }

// call runs one Qdrant call under the store's timeout, so that a server
// that accepts connections but never answers cannot hang a request.
func (s *Store) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return wrapErr(op, fn(ctx))
}
