package memindex

import (
	"slices"
	"testing"

	"github.com/viterin/vek/vek32"
)

// Logs whether vek32 uses its AVX2 kernels here: without them a search
// scores rows about four times slower (it is not an error, only slower).
func TestVekAcceleration(t *testing.T) {
	info := vek32.Info()
	t.Logf("vek: arch %s, acceleration %v, AVX2 %v, FMA %v", info.CPUArchitecture, info.Acceleration,
		slices.Contains(info.CPUFeatures, "AVX2"), slices.Contains(info.CPUFeatures, "FMA"))
}
