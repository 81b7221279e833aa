package pglocal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"syscall"
)

// serverUser is the OS account that runs PostgreSQL when we are root.
const serverUser = "postgres"

// account is the unprivileged OS user PostgreSQL binaries run as when the
// calling process is root.
type account struct {
	name   string
	uid    uint32
	gid    uint32
	groups []uint32
	home   string
}

// postgresAccount looks up the postgres OS user, creating it with useradd
// if it does not exist.
func postgresAccount() (*account, error) {
	u, err := user.Lookup(serverUser)
	var unknown user.UnknownUserError
	if errors.As(err, &unknown) {
		cmd := exec.Command("useradd", "--system", "--home-dir", "/var/lib/postgresql", "--shell", "/bin/bash", serverUser)
		out, cerr := cmd.CombinedOutput()
		// A concurrent process may have created the user meanwhile, so look
		// it up again before reporting the useradd failure.
		u, err = user.Lookup(serverUser)
		if err != nil && cerr != nil {
			return nil, fmt.Errorf("PostgreSQL refuses to run as root and OS user %q does not exist; "+
				"creating it failed: useradd: %w\n%s", serverUser, cerr, out)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("look up OS user %q: %w", serverUser, err)
	}
	return newAccount(u)
}

// newAccount converts a looked-up user into numeric credentials.
func newAccount(u *user.User) (*account, error) {
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: bad uid %q", u.Username, u.Uid)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: bad gid %q", u.Username, u.Gid)
	}
	a := &account{name: u.Username, uid: uint32(uid), gid: uint32(gid), home: u.HomeDir}
	ids, _ := u.GroupIds() // Supplementary groups are a nicety; ignore lookup failures.
	for _, id := range ids {
		if g, err := strconv.ParseUint(id, 10, 32); err == nil {
			a.groups = append(a.groups, uint32(g))
		}
	}
	return a, nil
}

// credential returns the process credentials for running as the account.
func (a *account) credential() *syscall.Credential {
	return &syscall.Credential{Uid: a.uid, Gid: a.gid, Groups: a.groups}
}

// homeDir returns a HOME for the account's processes: its home directory if
// that exists, otherwise fallback.
func (a *account) homeDir(fallback string) string {
	if fi, err := os.Stat(a.home); err == nil && fi.IsDir() {
		return a.home
	}
	return fallback
}

// inGroup reports whether the account belongs to group gid.
func (a *account) inGroup(gid uint32) bool {
	return gid == a.gid || slices.Contains(a.groups, gid)
}
