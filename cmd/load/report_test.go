package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Percentiles are by nearest rank over the sorted durations.
func TestLatencyPercentiles(t *testing.T) {
	ds := make([]time.Duration, 0, 200)
	for i := 200; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := latencyOf(ds)
	assert.Equal(t, Latency{N: 200, P50: 100 * time.Millisecond, P95: 190 * time.Millisecond,
		P99: 198 * time.Millisecond, Max: 200 * time.Millisecond}, l)
	assert.Equal(t, "100.0 / 190.0 / 198.0 / 200.0 ms", l.String())
	one := latencyOf([]time.Duration{7 * time.Millisecond})
	assert.Equal(t, Latency{N: 1, P50: 7 * time.Millisecond, P95: 7 * time.Millisecond, P99: 7 * time.Millisecond, Max: 7 * time.Millisecond}, one)
	assert.Equal(t, "none", latencyOf(nil).String())
}

// The table has a row per figure and one per kind of error.
func TestReportTable(t *testing.T) {
	rep := Report{URL: "http://127.0.0.1:8080", Tenant: "load", Limits: "raised", Customers: 200, Duration: time.Minute,
		Elapsed: 2 * time.Minute, KB: seeded{ID: "kb_1", Chunks: 100_000, Took: 90 * time.Second},
		Sessions: 200, Messages: 1200, Transferred: 200, Errors: errorCounts{"HTTP 429 rate_limited": 3, "timeout (-message-timeout)": 1},
		Done: latencyOf([]time.Duration{time.Second}), PID: 42, ProcName: "assistant", RSSBefore: 100 << 20,
		RSSPeak: 300 << 20, RSSAfter: 200 << 20, ServiceCPU: 90 * time.Second, LoadCPU: 30 * time.Second, MachineCPU: 200 * time.Second, Cores: 2, LoadBefore: "1.00 1.00 1.00", LoadAfter: "2.00 1.50 1.00"}
	var b bytes.Buffer
	rep.write(&b)
	out := b.String()
	for _, want := range []string{
		"| knowledge base                       | kb_1, 100000 chunks, seeded in 1m30s |",
		"| replies (done)                       | 1200: 1000 answered, 200 handed over |",
		"| throughput                           | 10.0 msgs/s (over 2m0s) |",
		"| to first delta p50 / p95 / p99 / max | none |",
		"| to done p50 / p95 / p99 / max        | 1000.0 / 1000.0 / 1000.0 / 1000.0 ms |",
		"| errors                               | 4 |",
		"|   HTTP 429 rate_limited              | 3 |",
		"|   timeout (-message-timeout)         | 1 |",
		"| service RSS before / peak / after    | 100 MiB / 300 MiB / 200 MiB (pid 42, assistant) |",
		"| service CPU                          | 90.0 s (0.75 cores), 75.0 ms per reply |",
		"| load tool CPU (same machine)         | 30.0 s (0.25 cores) |",
		"| machine CPU busy (everything)        | 200.0 s (1.67 cores) of 2 cores |",
		"| load average before / after          | 1.00 1.00 1.00 / 2.00 1.50 1.00 |",
	} {
		assert.Contains(t, out, want)
	}
	assert.Less(t, strings.Index(out, "HTTP 429"), strings.Index(out, "timeout"), "kinds in order")
	rep.PID, rep.ProcNote = 0, "not this machine"
	b.Reset()
	rep.write(&b)
	assert.Contains(t, b.String(), "| not measured: not this machine |")
}
