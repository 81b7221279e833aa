package hybrid

// The parts of EstimateBytes, fitted to the indexes' own estimates (Bytes)
// of tenants of 500 to 5,000 chunks of 1 to 300 words
// (TestEstimateBytesFollowsTheIndex): per chunk, its int4 code (half a
// byte a dimension) and about 640 bytes of ids, rows and postings' fixed
// parts; per byte of search text, about 3 of postings and dictionary.
const (
	chunkFixedBytes = 640
	textByteBytes   = 3
)

// EstimateBytes estimates the heap the index holds for a tenant of chunks
// chunks of dims dimensions with textBytes bytes of search text in all,
// without loading it: what the tenants' index memory quota counts. It is
// within about a third of what the loaded index counts (Stats.Bytes), over
// rather than under for large tenants, whose many chunks share their
// words.
func EstimateBytes(dims int, chunks, textBytes int64) int64 {
	if chunks <= 0 {
		return 0
	}
	return chunks*(int64(dims)/2+chunkFixedBytes) + textBytes*textByteBytes
}
