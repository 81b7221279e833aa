package hybrid

import "runtime"

// mapsVectors: the loaded tenants' float32 vectors are in mapped files
// (memindex maps them on Linux only).
const mapsVectors = runtime.GOOS == "linux"
