// Package ingest turns uploads into searchable chunks: the Service takes
// uploads (detect, validate, store with a queued job) and the Worker runs
// the jobs durably through parse → chunk → embed → index.
package ingest
