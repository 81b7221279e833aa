//go:build !race

package offline

// raceEnabled: see race_test.go.
const raceEnabled = false
