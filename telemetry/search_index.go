package telemetry

import "github.com/prometheus/client_golang/prometheus"

// SearchIndexStats is the embedded search index of this replica at one
// moment (store/hybrid.Stats).
type SearchIndexStats struct {
	Tenants          int
	Bytes            int64
	Loads, Evictions int
}

// WatchSearchIndex adds the embedded search index's figures, read through
// read at each scrape: resident tenants and their estimated bytes (to set
// ASSISTANT_INDEX_MEMORY_BYTES by), and the tenants loaded and evicted so
// far (evictions climbing with loads mean the bound is too small for the
// tenants in use). Per replica: sum them.
func (m *Metrics) WatchSearchIndex(read func() SearchIndexStats) {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_search_index_"+name, help, nil, nil)
	}
	m.reg.MustRegister(&searchIndexCollector{
		read:      read,
		tenants:   desc("tenants", "Tenants whose search index is resident in this replica."),
		bytes:     desc("bytes", "Estimated bytes of the resident tenants' search index (vectors, codes and words)."),
		loads:     desc("loads_total", "Tenants' search indexes loaded from PostgreSQL since the start."),
		evictions: desc("evictions_total", "Tenants' search indexes evicted to stay within ASSISTANT_INDEX_MEMORY_BYTES since the start."),
	})
}

// searchIndexCollector reads the index when scraped.
type searchIndexCollector struct {
	read                             func() SearchIndexStats
	tenants, bytes, loads, evictions *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *searchIndexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.tenants
	ch <- c.bytes
	ch <- c.loads
	ch <- c.evictions
}

// Collect implements prometheus.Collector.
func (c *searchIndexCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	ch <- prometheus.MustNewConstMetric(c.tenants, prometheus.GaugeValue, float64(st.Tenants))
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(c.loads, prometheus.CounterValue, float64(st.Loads))
	ch <- prometheus.MustNewConstMetric(c.evictions, prometheus.CounterValue, float64(st.Evictions))
}
