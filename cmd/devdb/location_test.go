package main

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTheClusterStaysInTheDataFolderWhenTheServerCanReachIt(t *testing.T) {
	loc := clusterLocation("/srv/app/.data", func(string) error { return nil })
	assert.Equal(t, location{dataDir: "/srv/app/.data/postgres", logFile: "/srv/app/.data/postgres.log"}, loc)
}

func TestAnUnreachableDataFolderGetsAStableClusterElsewhere(t *testing.T) {
	denied := errors.New("cannot enter /root")
	a := clusterLocation("/root/app/.data", func(string) error { return denied })
	b := clusterLocation("/root/app/.data", func(string) error { return denied })
	other := clusterLocation("/root/other/.data", func(string) error { return denied })
	assert.Equal(t, a, b, "the same folder on every run: nothing stored is lost on restart")
	assert.NotEqual(t, a.dataDir, other.dataDir, "one cluster per data folder")
	assert.Equal(t, rootFallback, filepath.Dir(filepath.Dir(a.dataDir)))
	assert.Equal(t, "postgres", filepath.Base(a.dataDir))
	assert.Equal(t, filepath.Join(filepath.Dir(a.dataDir), "postgres.log"), a.logFile)
	assert.Same(t, denied, a.moved)

	dir := t.TempDir()
	assert.NoError(t, writeLocationNote(dir, a))
	assert.FileExists(t, filepath.Join(dir, locationNote))
}
