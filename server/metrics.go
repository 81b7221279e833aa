package server

import "github.com/labstack/echo/v4"

// registerMetrics mounts GET /metrics (Prometheus) at the root, outside
// the contract's auth like /healthz: it is for the operator's scraper on
// the internal network, and names no tenant.
func (s *Server) registerMetrics(t Telemetry) {
	if t == nil {
		return
	}
	s.echo.GET("/metrics", echo.WrapHandler(t.MetricsHandler()))
}
