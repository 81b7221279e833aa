// Package offline is the default embedder: it needs no model files, no
// network and no GPU, so the service can index and search out of the box.
//
// It is LEXICAL, not semantic. A vector is a signed feature-hashing sketch
// of the surface of a text, so two texts score high when they share words
// or word pieces ("refund" / "refunds", "退款") and near zero when they
// say the same thing in different words ("money back" / "refund"). Treat
// it as a fuzzy keyword matcher that fits the vector store's interface; a
// neural embedding model is what captures meaning.
//
// The features, after NFKC normalisation and lower-casing:
//   - words: runs of letters, digits and marks;
//   - word bigrams: each word with the next (a CJK run breaks the chain);
//   - character 3-grams of each word with a letter, between boundary
//     markers ("^re", "ref", …, "nd$"), so inflections share features;
//     Latin words above all, but any alphabetic script gets them;
//   - for Han, Hiragana, Katakana and Hangul, which are written without
//     spaces between words: each character and each pair of adjacent
//     characters.
//
// Each feature is hashed (FNV-1a and a fixed mixer, never a per-process
// seed) to one of Dims buckets with a sign, weighted by its type and by
// 1+ln(count), and the vector is scaled to unit length. A text without any
// feature (empty, or only punctuation) gets the zero vector: it is similar
// to nothing, and the in-memory index (store/vector/memindex) returns no
// hits for it.
//
// The vectors are a pure function of the text and ModelName: identical on
// every run, process and restart, so stored vectors stay valid until the
// features change, which bumps the version in ModelName.
package offline
