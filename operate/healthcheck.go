package operate

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/config"
)

// healthcheckTimeout bounds the health check's one request.
const healthcheckTimeout = 3 * time.Second

// Healthcheck asks the local server's /readyz, at ASSISTANT_ADDR read
// through getenv (a wildcard host is asked on 127.0.0.1), and returns the
// process's exit code: 0 when it is ready, 1 with a line on stderr when
// not. It is the container health check, for images that have no shell
// or curl.
func Healthcheck(getenv func(string) string, stderr io.Writer) int {
	addr := getenv("ASSISTANT_ADDR")
	if addr == "" {
		addr = config.DefaultAddr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck: ASSISTANT_ADDR:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: healthcheckTimeout}
	res, err := client.Get("http://" + net.JoinHostPort(host, port) + "/readyz")
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintln(stderr, "healthcheck: /readyz answered", res.Status)
		return 1
	}
	return 0
}
