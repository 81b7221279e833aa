package access

import "github.com/cs-assistant/assistant/domain"

// CountLookups makes the key cache count its hits and misses with l; call
// it before the service is used.
func (k *Keys) CountLookups(l domain.LookupCounter) { k.cache.CountLookups(l) }

// CountLookups makes the tenant cache count its hits and misses with l;
// call it before the service is used.
func (t *Tenants) CountLookups(l domain.LookupCounter) { t.cache.CountLookups(l) }

// CountLookups makes the settings cache count its hits and misses with l;
// call it before the service is used.
func (s *Settings) CountLookups(l domain.LookupCounter) { s.cache.CountLookups(l) }
