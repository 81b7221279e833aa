// Package guard holds the guardrails of generated answers: forbidden
// words, behaviour rules and the high-risk handler, applied to a user's
// input (high risk only) and to the answer, whole or streamed. It has two
// halves:
//
//   - The engine: a configuration (Config) compiles into a Guard
//     (Compile), an immutable value that checks an input, an answer or a
//     stream (CheckInput, CheckOutput, NewStream), so a check in flight
//     keeps the Guard it started with when the configuration changes.
//   - Each tenant's guardrails: ConfigFrom turns the stored configuration
//     (domain.GuardConfig) into a Config; Guards hands the dialogue each
//     tenant's compiled Guard (cached, shared loads, dropped on change);
//     Service is what the admin API does with forbidden words, behaviour
//     rules, settings, the test bench and the hit statistics, every write
//     validated by compiling the whole configuration; HitRecords turns a
//     verdict into the monitoring records.
//
// # Matching
//
// Forbidden words, contains rules and high-risk keywords are matched
// together by one Aho-Corasick automaton over the normalised text, so a
// check costs one pass however many words a tenant has (see automaton for
// the complexity). The normal form folds what a model or a user may vary
// without changing the meaning: width (full-width Latin to ASCII, via
// golang.org/x/text/width), compatibility forms (NFKC), case (simple
// folding), typographic apostrophes and hyphens, and runs of white space
// (one space). "ＢＡＤ" hits "bad", "kill\n myself" hits "kill myself".
// Patterns are normalised the same way when compiled.
//
// Regular expressions (regex rules and high-risk patterns) are RE2, run on
// the same normalised text and compiled case-insensitive: a pattern sees
// lower-case, half-width text with single spaces and no newlines.
//
// Every hit is reported on the original text: Hit.Start and Hit.End are
// byte offsets into the checked string (text[Start:End] is Hit.Matched),
// widened to whole normalisation segments where one character was written
// as several (a letter and its combining accent).
//
// # Decisions
//
// On an answer, masked words are replaced in place (by default one "*"
// per character, so the layout stays); a blocking word, a replacing or
// transferring rule, or a high-risk hit withholds the whole answer and
// the Verdict's Text is the safe text (or the rule's text); appending
// rules add their notices after the answer. A RuleHighRisk rule takes over
// the answer-side handling of its category (to append a hotline, say);
// a user's input with a high-risk hit is always handed over.
//
// # Streaming
//
// A Stream releases an answer delta by delta, each piece only after it
// has been checked: it holds back as many normalised characters as the
// longest word or keyword (so a word split across deltas is still whole
// when it is matched, and an exact word's right boundary is known), plus
// any character that a following combining mark or UTF-8 byte could still
// change. Because the normal form is built segment by segment and only
// ever extends, a stream finds exactly the matches of a check of the whole
// text: its releases concatenate to CheckOutput's Text, and its final
// verdict is CheckOutput's.
package guard
