package ingest

import "bytes"

// bytesSource is an in-memory file for the parsers.
type bytesSource struct {
	*bytes.Reader
	size int64
}

func newBytesSource(b []byte) bytesSource {
	return bytesSource{Reader: bytes.NewReader(b), size: int64(len(b))}
}

// Size is the file's length.
func (s bytesSource) Size() int64 { return s.size }
