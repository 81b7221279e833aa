package main

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
)

// Bounds of the real-binary process helper. Start-up applies migrations and
// loads the indexes (a second or two when idle, much more on a loaded
// 2-core machine); stopping is SIGTERM's graceful shutdown.
const (
	procReadyTimeout = 60 * time.Second
	procStopTimeout  = 60 * time.Second
)

// buildService builds this command into a temporary directory and returns
// the binary's path. The compile is cached by go; linking takes ~2 s.
func buildService(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := filepath.Join(t.TempDir(), "assistant")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// serviceProc is the real service running as a child process on a fixed
// address, so that a restart comes back where clients look for it.
type serviceProc struct {
	t    *testing.T
	bin  string
	addr string
	env  []string
	log  string // the file the process's output goes to
	cmd  *exec.Cmd
	// exited is closed when the current process has been waited for;
	// exitErr (Wait's result) and exitedAt are readable once it is.
	exited   chan struct{}
	exitErr  error
	exitedAt time.Time
}

// newServiceProc prepares (does not start) the binary on cfg's database,
// data dir and default key, on a free loopback address; extra is more
// KEY=value environment. Whatever still runs at the end of the test is
// stopped with SIGTERM (SIGKILL if it will not stop), and its log is shown
// when the test failed.
func newServiceProc(t *testing.T, bin string, cfg config.Config, extra ...string) *serviceProc {
	t.Helper()
	p := &serviceProc{t: t, bin: bin, addr: freeAddr(t), log: filepath.Join(t.TempDir(), "assistant.log")}
	// No request rate limits, and cfg's quotas (the harness's: none): the
	// load these tests make is the point, and the limits have tests of
	// their own.
	p.env = append(os.Environ(), "DATABASE_URL="+cfg.DatabaseURL, "ASSISTANT_ADDR="+p.addr,
		"ASSISTANT_DATA_DIR="+cfg.DataDir, "ASSISTANT_DEFAULT_API_KEY="+cfg.DefaultAPIKey, "LOG_LEVEL=warn",
		"ASSISTANT_RATE_LIMIT_PER_KEY=0", "ASSISTANT_RATE_LIMIT_PER_TENANT=0",
		// The same secret key and allow list as the in-process services.
		"ASSISTANT_SECRET_KEY="+hex.EncodeToString(cfg.SecretKey), "ASSISTANT_OUTBOUND_ALLOW="+cfg.OutboundAllow.String())
	for _, q := range domain.AllQuotas() {
		p.env = append(p.env, fmt.Sprintf("%s=%d", config.QuotaVariable(q), cfg.Quotas[q]))
	}
	p.env = append(p.env, extra...)
	t.Cleanup(func() {
		if p.running() {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			if !p.waitExit(procStopTimeout) {
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
		}
		if t.Failed() {
			p.showLog()
		}
	})
	return p
}

// URL is the service's base URL.
func (p *serviceProc) URL() string { return "http://" + p.addr }

// start runs the binary and waits until /readyz answers 200.
func (p *serviceProc) start() {
	p.t.Helper()
	require.False(p.t, p.running(), "already running")
	f, err := os.OpenFile(p.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(p.t, err)
	defer f.Close() // the child has its own copy
	cmd := exec.Command(p.bin)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, f, f
	require.NoError(p.t, cmd.Start())
	p.cmd, p.exited, p.exitErr = cmd, make(chan struct{}), nil
	go func(exited chan struct{}) {
		p.exitErr = cmd.Wait()
		p.exitedAt = time.Now()
		close(exited)
	}(p.exited)
	client := &http.Client{Timeout: 2 * time.Second}
	require.Eventually(p.t, func() bool {
		if !p.running() {
			return true // fail below, with the reason
		}
		res, err := client.Get(p.URL() + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, procReadyTimeout, 50*time.Millisecond, "the service never became ready")
	require.True(p.t, p.running(), "the service exited at start: %v\n%s", p.exitErr, p.tail())
}

// running reports whether the process is started and has not exited.
func (p *serviceProc) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// signal sends sig to the running process.
func (p *serviceProc) signal(sig syscall.Signal) {
	p.t.Helper()
	require.True(p.t, p.running(), "not running")
	require.NoError(p.t, p.cmd.Process.Signal(sig))
}

// waitExit waits up to d for the process to exit and reports whether it did.
func (p *serviceProc) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// rssBytes is the process's resident set size (VmRSS of /proc/<pid>/status).
func (p *serviceProc) rssBytes() int64 {
	p.t.Helper()
	require.True(p.t, p.running(), "not running")
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	require.NoError(p.t, err)
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(p.t, err, "VmRSS line %q", line)
			return kib << 10
		}
	}
	require.Fail(p.t, "no VmRSS in /proc/<pid>/status")
	return 0
}

// tail is the end of the process's log.
func (p *serviceProc) tail() string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	const keep = 8 << 10
	if len(data) > keep {
		data = data[len(data)-keep:]
	}
	return string(data)
}

func (p *serviceProc) showLog() { p.t.Logf("log of %s (%s), last 8 KiB:\n%s", p.addr, p.log, p.tail()) }

// remoteEnv is an env whose requests go to a service in another process,
// on the database of cfg, authenticating with its default key.
func remoteEnv(t *testing.T, cfg config.Config, url string) *env {
	e := &env{t: t, cfg: cfg, root: cfg.DefaultAPIKey}
	e.attachRemote(t, url)
	return e
}
