package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// With ASSISTANT_METRICS_ADDR set, the keyless scrape endpoint is off the
// API's address and served on its own, alone; the service starts and
// stops that listener with itself.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	e := newEnv(t, func(c *config.Config) { c.MetricsAddr = "127.0.0.1:0" })
	r := e.do(req{method: "GET", path: "/metrics", key: "-"})
	assert.Equal(t, http.StatusNotFound, r.Status, "no metrics beside the API")

	metrics := httptest.NewServer(e.app.metricsHandler())
	defer metrics.Close()
	res, err := http.Get(metrics.URL + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "assistant_http_requests_total")
	res, err = http.Get(metrics.URL + "/api/v1/tenants")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode, "nothing but metrics there")

	stop, err := e.app.serveMetrics()
	require.NoError(t, err)
	stop()
}
