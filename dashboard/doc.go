// Package dashboard computes the tenant's dashboard: the figures of a time
// range (conversations, replies, hand-offs, confidence, latency, tokens,
// rules, unanswered questions, guardrails, knowledge) and their time series,
// folded from the hourly facts the store computes by SQL over the messages
// and monitoring records. Records older than a few minutes are read from
// hourly roll-ups that Run keeps (RollUp); the newer ones are computed live,
// with the same query, so the figures are current and a range of days reads
// rows per hour instead of every message.
package dashboard
