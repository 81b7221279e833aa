//go:build !amd64

package memindex

// dotInt8Kernel returns the portable kernel: there is no assembly for
// this architecture.
func dotInt8Kernel() dotInt8Func { return dotInt8Go }
