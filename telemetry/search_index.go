package telemetry

import "github.com/prometheus/client_golang/prometheus"

// SearchIndexStats is the embedded search index of this replica at one
// moment (store/hybrid.Stats).
type SearchIndexStats struct {
	Tenants int
	// Bytes is the Go heap the resident tenants hold, MappedBytes their
	// float32 vectors in memory-mapped files (outside the heap and the
	// bound).
	Bytes, MappedBytes int64
	Loads, Evictions   int
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
		bytes:     desc("bytes", "Estimated heap bytes of the resident tenants' search index (codes, words, ids; bounded by ASSISTANT_INDEX_MEMORY_BYTES)."),
		mapped:    desc("mapped_bytes", "Bytes of the resident tenants' float32 vectors in memory-mapped files under ASSISTANT_INDEX_DIR (page cache, not heap)."),
		loads:     desc("loads_total", "Tenants' search indexes loaded from PostgreSQL since the start."),
		evictions: desc("evictions_total", "Tenants' search indexes evicted to stay within ASSISTANT_INDEX_MEMORY_BYTES since the start."),
	})
}

// searchIndexCollector reads the index when scraped.
type searchIndexCollector struct {
	read                                     func() SearchIndexStats
	tenants, bytes, mapped, loads, evictions *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *searchIndexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.tenants
	ch <- c.bytes
	ch <- c.mapped
	ch <- c.loads
	ch <- c.evictions
}

// Collect implements prometheus.Collector.
func (c *searchIndexCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.read()
	ch <- prometheus.MustNewConstMetric(c.tenants, prometheus.GaugeValue, float64(st.Tenants))
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(c.mapped, prometheus.GaugeValue, float64(st.MappedBytes))
	ch <- prometheus.MustNewConstMetric(c.loads, prometheus.CounterValue, float64(st.Loads))
	ch <- prometheus.MustNewConstMetric(c.evictions, prometheus.CounterValue, float64(st.Evictions))
}
