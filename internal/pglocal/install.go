package pglocal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// canAptInstall reports whether FindBinaries may install PostgreSQL itself:
// only as root, on Debian or a derivative, with apt-get available.
func canAptInstall() bool {
	if os.Geteuid() != 0 {
		return false
	}
	if _, err := os.Stat("/etc/debian_version"); err != nil {
		return false
	}
	_, err := exec.LookPath("apt-get")
	return err == nil
}

// aptInstallPostgres installs the postgresql package, running apt-get update
// only when the first attempt fails. Several processes (parallel test
// binaries) may get here at once, so the work is serialised with a file
// lock and skipped if another process installed the binaries meanwhile.
func aptInstallPostgres() error {
	unlock, err := lockFile(filepath.Join(os.TempDir(), "pglocal-apt-install.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, ok := searchBinaries(debianLibDir); ok {
		return nil
	}

	fmt.Fprintln(os.Stderr, "pglocal: PostgreSQL server binaries not found; installing the postgresql package with apt-get")
	install := []string{"install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=300", "postgresql"}
	if err := aptGet(install...); err == nil {
		return nil
	}
	if err := aptGet("update"); err != nil {
		return err
	}
	return aptGet(install...)
}

// aptGet runs apt-get non-interactively, streaming its output to stderr.
func aptGet(args ...string) error {
	cmd := exec.Command("apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("apt-get %v: %w", args, err)
	}
	return nil
}

// lockFile takes an exclusive lock on path, waiting for other holders, and
// returns the function that releases it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil
}
