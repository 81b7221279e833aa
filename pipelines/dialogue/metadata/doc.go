// Package metadata is the tenant's metadata field definitions as the
// dialogue reads them: a cache of each tenant's fields, which every
// message that filters retrieval by slots or decomposed values reads, and
// the administration's writes, which drop it.
package metadata
