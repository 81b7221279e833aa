// Package guardrails serves a tenant's guardrails to the rest of the
// service: Guards hands the dialogue each tenant's compiled guard.Guard
// (cached, shared loads, dropped on change), and Service is what the admin
// API does with forbidden words, behaviour rules, settings, the test
// bench and the hit statistics. It depends only on domain and guard.
package guardrails
