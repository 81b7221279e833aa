package access

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

type hash = [sha256.Size]byte

type cachedKey struct {
	key     domain.APIKey
	expires time.Time
}

// keyCache holds verified keys for a short TTL, and unknown hashes for a
// shorter one, so neither real traffic nor a flood of random keys reaches
// the database on every request. Both maps are bounded: when one is full it
// is emptied, which costs a few database reads and can never grow memory.
type keyCache struct {
	mu       sync.RWMutex
	known    map[hash]cachedKey
	unknown  map[hash]time.Time
	ttl      time.Duration
	negTTL   time.Duration
	maxItems int
}

func newKeyCache(ttl, negTTL time.Duration, maxItems int) *keyCache {
	return &keyCache{
		known: make(map[hash]cachedKey), unknown: make(map[hash]time.Time),
		ttl: ttl, negTTL: negTTL, maxItems: maxItems,
	}
}

// get returns the cached key; unknown is true when the hash is known not to
// exist; hit is false when the database must be asked.
func (c *keyCache) get(h hash, now time.Time) (k domain.APIKey, unknown, hit bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e, ok := c.known[h]; ok && now.Before(e.expires) {
		return e.key, false, true
	}
	if exp, ok := c.unknown[h]; ok && now.Before(exp) {
		return domain.APIKey{}, true, true
	}
	return domain.APIKey{}, false, false
}

func (c *keyCache) putKnown(h hash, k domain.APIKey, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.known) >= c.maxItems {
		clear(c.known)
	}
	delete(c.unknown, h)
	c.known[h] = cachedKey{key: k, expires: now.Add(c.ttl)}
}

func (c *keyCache) putUnknown(h hash, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.unknown) >= c.maxItems {
		clear(c.unknown)
	}
	c.unknown[h] = now.Add(c.negTTL)
}

// drop forgets a hash at once (revoke, rotate).
func (c *keyCache) drop(h []byte) {
	var k hash
	if copy(k[:], h) != len(k) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.known, k)
	delete(c.unknown, k)
}
