// Package decompose runs a tenant's published decomposition template over a
// customer message (before retrieval) or a document's text (at upload): it
// extracts the template's targets, slot values and metadata values, with
// the kb_processing model when the tenant configured one and with an
// extractive fallback otherwise, and keeps only what the tenant's slot
// definitions and metadata fields accept. It also holds the templates'
// administration (validated, versioned writes and previews).
package decompose
