package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The service's process, read from /proc when it runs on this machine
// (Linux).

// procRoot is where the process table is mounted.
const procRoot = "/proc"

// tcpListen is the state of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// listenerOf finds the process listening on the port of rawURL when its
// host is this machine: the socket's inode from /proc/net/tcp{,6}, then
// the process holding it among /proc/*/fd (all of them readable as root or
// as the service's user).
func listenerOf(rawURL string) (int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, err
	}
	if !isLocalHost(u.Hostname()) {
		return 0, fmt.Errorf("%s is not this machine", u.Hostname())
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		return 0, fmt.Errorf("port %q: %w", port, err)
	}
	inodes := map[string]bool{}
	for _, table := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(filepath.Join(procRoot, table))
		if err != nil {
			continue // no IPv6, or no /proc
		}
		for _, ino := range listeningInodes(f, p) {
			inodes[ino] = true
		}
		f.Close()
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no socket listens on port %d here", p)
	}
	pid := socketOwner(inodes)
	if pid == 0 {
		return 0, fmt.Errorf("no readable process holds the socket of port %d (run as its user or root, or pass -pid)", p)
	}
	return pid, nil
}

// listeningInodes reads a /proc/net/tcp table and returns the inodes of
// the sockets listening on port.
func listeningInodes(table io.Reader, port int) []string {
	var out []string
	sc := bufio.NewScanner(table)
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port && f[9] != "0" {
			out = append(out, f[9])
		}
	}
	return out
}

// socketOwner is the first process with a descriptor on one of the socket
// inodes, or 0.
func socketOwner(inodes map[string]bool) int {
	procs, _ := os.ReadDir(procRoot)
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(procRoot, p.Name(), "fd"))
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(procRoot, p.Name(), "fd", fd.Name()))
			if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok && inodes[strings.TrimSuffix(ino, "]")] {
				return pid
			}
		}
	}
	return 0
}

// isLocalHost says whether host names this machine: localhost, a loopback
// or unspecified address, or an address of one of its interfaces.
func isLocalHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return false
		}
		ip = ips[0]
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// rssBytes is a process's resident set size (VmRSS of /proc/<pid>/status).
func rssBytes(pid int) (int64, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", rest, err)
			}
			return kib << 10, nil
		}
	}
	return 0, errors.New("no VmRSS in /proc/<pid>/status")
}

// procName is the name of a process's executable (/proc/<pid>/exe), else
// its command name (/proc/<pid>/comm, at most 15 bytes), or "".
func procName(pid int) string {
	dir := filepath.Join(procRoot, strconv.Itoa(pid))
	if exe, err := os.Readlink(filepath.Join(dir, "exe")); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	}
	data, _ := os.ReadFile(filepath.Join(dir, "comm"))
	return strings.TrimSpace(string(data))
}

// clockTicks is the unit of the CPU times of /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTicks = 100

// cpuTime is the CPU time (user and system) a process has used so far,
// from /proc/<pid>/stat.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after it. utime and stime are fields 14 and 15; state is field 3.
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return 0, errors.New("no command name in /proc/<pid>/stat")
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc/<pid>/stat")
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/<pid>/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// machineBusy is the CPU time all of this machine's CPUs have spent busy
// (neither idle nor waiting for I/O) since boot, from /proc/stat.
func machineBusy() (time.Duration, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, errors.New("no cpu line in /proc/stat")
	}
	var busy int64
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		if i != 3 && i != 4 && i < 7 { // user, nice, system, irq, softirq: not idle, iowait, steal, guest (in user)
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / clockTicks, nil
}

// selfCPU is the CPU time (user and system) this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is this machine's 1, 5 and 15 minute load averages, or "".
func loadAverage() string {
	data, _ := os.ReadFile(filepath.Join(procRoot, "loadavg"))
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
