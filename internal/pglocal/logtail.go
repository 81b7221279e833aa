package pglocal

import (
	"io"
	"os"
	"strings"
)

// maxTailBytes bounds how much of a log tailFile reads.
const maxTailBytes = 64 << 10

// fileSize returns the size of the file at path, or 0 if it cannot be read.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// tailFile returns the last n lines written to path after byte offset from.
func tailFile(path string, from int64, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(cannot read log: " + err.Error() + ")"
	}
	defer f.Close()
	if size := fileSize(path); size-from > maxTailBytes {
		from = size - maxTailBytes
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return "(cannot read log: " + err.Error() + ")"
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "(cannot read log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		return "(log is empty)"
	}
	return text
}
