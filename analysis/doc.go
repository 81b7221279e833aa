// Package analysis is the one text analysis behind every lexical part of
// the service: the BM25 index, the offline answerer's sentence selection
// and the answerability check all cut text into terms here, so a question
// and a document always meet on the same terms.
//
// A term is, after NFKC normalisation and lower-casing:
//   - a word (a run of letters, digits and marks) that is not a stop word,
//     stemmed with the Snowball English stemmer ("returned", "returns" →
//     "return"); numbers and codes stay as they are ("2pm", "12345");
//   - for runs of Han, Hiragana, Katakana and Hangul, which are written
//     without spaces: each character that is not a function character
//     (的, 了, 吗, …) and each pair of adjacent characters that is not a
//     question word (什么, 怎么, …). Pairs match two-character words without
//     a dictionary; single characters let a paraphrase that shares no pair
//     still count what it shares.
//
// Sentences cuts text into sentences for quoting, and Language tells the
// customer's language from the script and words of a message.
package analysis
