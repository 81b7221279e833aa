//go:build !linux

package memindex

import "errors"

// canMap: the float32 arenas stay in the heap on this system.
const canMap = false

// mapFloats is not available here (canMap is false).
func mapFloats(string, int) ([]byte, error) { return nil, errors.ErrUnsupported }

// unmapFloats has nothing to unmap here.
func unmapFloats([]byte) {}
