package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// rootFallback holds the clusters of data folders that the postgres OS
// user cannot reach (a checkout in root's home, mode 0700, as in CI and
// Debian containers): a persistent place every user can enter, so the data
// survive restarts and reboots.
const rootFallback = "/var/lib/cs-assistant/devdb"

// locationNote is the file in the data folder that says where its cluster
// lives when it is not inside it.
const locationNote = "postgres.location"

// location is where a data folder's cluster and its log live.
type location struct {
	dataDir, logFile string
	// moved says why they are not in the data folder (nil when they are).
	moved error
}

// clusterLocation places the cluster of data folder dir (absolute) in
// dir/postgres when the server can reach it, else under rootFallback in a
// folder named for dir, the same on every run.
func clusterLocation(dir string, reachable func(string) error) location {
	in := location{dataDir: filepath.Join(dir, "postgres"), logFile: filepath.Join(dir, "postgres.log")}
	err := reachable(in.dataDir)
	if err == nil {
		return in
	}
	sum := sha256.Sum256([]byte(dir))
	alt := filepath.Join(rootFallback, hex.EncodeToString(sum[:8]))
	return location{dataDir: filepath.Join(alt, "postgres"), logFile: filepath.Join(alt, "postgres.log"), moved: err}
}

// writeLocationNote records in the data folder where its cluster lives.
func writeLocationNote(dir string, loc location) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	note := "The PostgreSQL cluster of this folder lives in " + loc.dataDir + " (log " + loc.logFile + "),\n" +
		"because the postgres OS user cannot reach this folder: " + loc.moved.Error() + "\n"
	return os.WriteFile(filepath.Join(dir, locationNote), []byte(note), 0o600)
}
