package pglocal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNotFound is returned (wrapped) by FindBinaries when no PostgreSQL server
// binaries exist on the machine and they could not be installed.
var ErrNotFound = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found")

// debianLibDir holds one directory per installed major version on Debian and
// Ubuntu, each with a bin directory inside.
const debianLibDir = "/usr/lib/postgresql"

// serverBinaries returns the programs a Cluster needs, all in one directory.
func serverBinaries() []string { return []string{"initdb", "pg_ctl", "postgres"} }

// FindBinaries returns the directory that holds initdb, pg_ctl and postgres.
//
// Directories of binaries found on PATH (after resolving symlinks, so that
// pg_ctl finds postgres next to it) come first, then the highest version
// under /usr/lib/postgresql/*/bin. If nothing is found and the process runs
// as root on Debian or Ubuntu with apt-get available, the postgresql package
// is installed (apt-get output goes to stderr) and the search is repeated.
func FindBinaries() (dir string, err error) {
	if dir, ok := searchBinaries(debianLibDir); ok {
		return dir, nil
	}
	if !canAptInstall() {
		return "", notFoundError()
	}
	if err := aptInstallPostgres(); err != nil {
		return "", fmt.Errorf("%w: installing them with apt-get failed: %w", ErrNotFound, err)
	}
	if dir, ok := searchBinaries(debianLibDir); ok {
		return dir, nil
	}
	return "", fmt.Errorf("%w even after installing the postgresql package with apt-get", ErrNotFound)
}

// notFoundError tells the user what to do when no binaries are available.
// Callers that can use an existing server instead (devdb with DATABASE_URL)
// add that hint themselves.
func notFoundError() error {
	return fmt.Errorf("%w on PATH or in %s/*/bin; install the PostgreSQL server "+
		"(e.g. `apt-get install postgresql` or `brew install postgresql`)", ErrNotFound, debianLibDir)
}

// searchBinaries looks for a directory holding all server binaries, on
// PATH and in the versioned directories under libDir.
func searchBinaries(libDir string) (string, bool) {
	for _, dir := range candidateDirs(libDir) {
		if hasServerBinaries(dir) {
			return dir, true
		}
	}
	return "", false
}

// candidateDirs lists directories to check, most preferred first.
func candidateDirs(libDir string) []string {
	var dirs []string
	for _, name := range serverBinaries() {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	return append(dirs, versionDirs(libDir)...)
}

// versionDirs returns libDir/*/bin (libDir being /usr/lib/postgresql in
// production), highest version first.
func versionDirs(libDir string) []string {
	entries, err := os.ReadDir(libDir)
	if err != nil {
		return nil
	}
	var versions []string
	for _, e := range entries {
		if _, ok := parseVersion(e.Name()); ok {
			versions = append(versions, e.Name())
		}
	}
	slices.SortFunc(versions, func(a, b string) int {
		va, _ := parseVersion(a)
		vb, _ := parseVersion(b)
		return slices.Compare(vb, va)
	})
	dirs := make([]string, 0, len(versions))
	for _, v := range versions {
		dirs = append(dirs, filepath.Join(libDir, v, "bin"))
	}
	return dirs
}

// parseVersion parses "15" or "9.6" into its numeric parts.
func parseVersion(s string) ([]int, bool) {
	parts := strings.Split(s, ".")
	nums := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		nums = append(nums, n)
	}
	return nums, true
}

// hasServerBinaries reports whether dir holds every server binary as an
// executable regular file.
func hasServerBinaries(dir string) bool {
	for _, name := range serverBinaries() {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}
