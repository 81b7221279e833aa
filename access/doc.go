// Package access decides who may do what: it issues and verifies API keys
// (with an in-memory cache in front of the store), creates the default
// platform key at start, records key use off the hot path, resolves
// tenants (creating them on first use), and enforces the rules that keep
// tenant-bound keys inside their tenant.
package access
