package pglocal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// mkdirAll creates dir and any missing parents. Parents it creates get mode
// 0755 and dir itself gets perm, regardless of the umask, so that the
// postgres user can reach a cluster directory that root created.
func mkdirAll(dir string, perm fs.FileMode) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s exists and is not a directory", dir)
		}
		return nil
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(dir, perm)
}

// checkTraversable returns an error naming the first directory above path
// that the account cannot enter. Missing directories count as enterable,
// since mkdirAll creates them with mode 0755. Only Unix permission bits are
// considered, not ACLs.
func checkTraversable(a *account, path string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	var parents []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		parents = append(parents, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	for i := len(parents) - 1; i >= 0; i-- {
		dir := parents[i]
		fi, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // We create the rest, with mode 0755.
		}
		if err != nil {
			return err
		}
		if !canSearch(a, fi) {
			return fmt.Errorf("PostgreSQL runs as OS user %q (it refuses to run as root), which cannot enter %s "+
				"(mode %s) to reach %s; use a directory outside it (for example under /var/tmp or /srv)",
				a.name, dir, fi.Mode(), path)
		}
	}
	return nil
}

// canSearch reports whether the account has execute (search) permission on
// the directory described by fi.
func canSearch(a *account, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true // Cannot tell; let PostgreSQL report problems.
	}
	perm := fi.Mode().Perm()
	switch {
	case st.Uid == a.uid:
		return perm&0o100 != 0
	case a.inGroup(st.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// chownTree gives the account ownership of everything under dir unless dir
// already belongs to it.
func chownTree(a *account, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == a.uid && st.Gid == a.gid {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(a.uid), int(a.gid))
	})
}

// removeContents deletes everything inside dir, keeping dir itself.
func removeContents(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}

// Reachable reports whether the server can reach path: always when this
// process is not root (the server then runs as this user); as root, when
// the postgres OS user it runs as can enter every directory above path.
// The error names the directory that stops it.
func Reachable(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	a, err := postgresAccount()
	if err != nil {
		return err
	}
	return checkTraversable(a, path)
}
