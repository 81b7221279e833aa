package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	rtmetrics "runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportHeapBound bounds how much the process's live heap may grow while
// a 100k-message export streams (26 MB as CSV, 58 MB as JSON Lines). The
// growth measured is 2-5 MB whatever the row (buffers in flight, and what
// the export allocates during the collection that measures it); gathering
// the rows would take the export's size.
const exportHeapBound = 12 << 20

// TestConversationExportStreamsInConstantMemory is the "done when":
// 100k stored messages exported through the HTTP API, in both formats,
// while the live heap of the process (the service and this client, one
// process) is measured every 10k rows after a collection. It stays within
// a bound far below the export's size: nothing gathers the rows.
func TestConversationExportStreamsInConstantMemory(t *testing.T) {
	e := newEnv(t)
	const tenant, messages = "bulk", 100_000
	r := e.do(req{method: "GET", path: "/api/v1/admin/sessions", tenant: tenant}) // enters the tenant
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	seeded := seedConversations(t, e.db, seedSpec{tenant: tenant, messages: messages, perSession: 10,
		end: time.Now(), span: 24 * time.Hour, questions: 2000})
	require.Equal(t, messages, seeded.messages)

	for _, format := range []string{"jsonl", "csv"} {
		t.Run(format, func(t *testing.T) {
			hr, err := http.NewRequest("GET", e.srv.URL+"/api/v1/admin/conversations/export?format="+format, nil)
			require.NoError(t, err)
			hr.Header.Set("X-API-Key", e.root)
			hr.Header.Set("X-Tenant-Id", tenant)
			base := liveHeap()
			res, err := http.DefaultClient.Do(hr)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			assert.Contains(t, res.Header.Get("Content-Disposition"), "attachment; filename=")
			assert.Empty(t, res.Header.Get("Content-Length"), "streamed, not sized up front")

			body := &countingReader{r: res.Body}
			peak, rows := base, 0
			sample := func() {
				if h := liveHeap(); h > peak {
					peak = h
				}
			}
			if format == "jsonl" {
				lines := bufio.NewScanner(body)
				lines.Buffer(make([]byte, 64<<10), 1<<20)
				for lines.Scan() {
					var row struct {
						SessionID string
						Role      string
					}
					require.NoError(t, json.Unmarshal(lines.Bytes(), &row))
					require.NotEmpty(t, row.SessionID)
					if rows++; rows%10_000 == 0 {
						sample()
					}
				}
				require.NoError(t, lines.Err())
			} else {
				records := csv.NewReader(body)
				header, err := records.Read()
				require.NoError(t, err)
				require.Equal(t, "session_id", header[0])
				for {
					rec, err := records.Read()
					if err == io.EOF {
						break
					}
					require.NoError(t, err)
					require.Len(t, rec, len(header))
					if rows++; rows%10_000 == 0 {
						sample()
					}
				}
			}
			growth := peak - base
			t.Logf("export %s: %d rows, %.1f MB streamed, live heap %.1f MB before, peak growth %.2f MB",
				format, rows, float64(body.n)/1e6, float64(base)/1e6, float64(growth)/1e6)
			assert.Equal(t, messages, rows)
			assert.Less(t, growth, int64(exportHeapBound), "the export is streamed, not gathered")
			assert.Greater(t, body.n, int64(2*exportHeapBound), "the export is larger than the bound by far")
		})
	}
}

// liveHeap is the heap a full collection found live: what is reachable,
// without the garbage the still-running export makes meanwhile (which
// runtime.MemStats.HeapAlloc would count).
func liveHeap() int64 {
	runtime.GC()
	sample := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}}
	rtmetrics.Read(sample)
	return int64(sample[0].Value.Uint64())
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
