package domain

// LookupCounter counts the lookups of a cache as hits or misses, for the
// service's metrics; a nil one counts nothing. Caches take one through
// their CountLookups method, set once while the service is wired.
type LookupCounter func(hit bool)

// Count records one lookup.
func (c LookupCounter) Count(hit bool) {
	if c != nil {
		c(hit)
	}
}
