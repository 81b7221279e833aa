package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Report is what a run measured.
type Report struct {
	URL, Tenant string
	// Limits says which rate limits the tenant has.
	Limits string
	KB     seeded
	// Customers talked for Duration (as asked); Elapsed is from the first
	// message to the last reply.
	Customers int
	Duration  time.Duration
	Elapsed   time.Duration
	// Sessions opened; Messages answered with done, Transferred of them
	// handed over to a human.
	Sessions, Messages, Transferred int
	// FirstDelta and Done are the times from sending a message to its first
	// delta and to done.
	FirstDelta, Done Latency
	Errors           errorCounts
	// PID is the service's process (0: not measured, see ProcNote); RSS in
	// bytes before the conversations, the highest seen while they ran, and
	// after.
	PID                          int
	ProcName, ProcNote           string
	RSSBefore, RSSPeak, RSSAfter int64
	// ServiceCPU and LoadCPU are the CPU time the service (when PID is
	// known) and this program used during the conversations.
	ServiceCPU, LoadCPU time.Duration
	// MachineCPU is the CPU time all of this machine's Cores spent busy
	// during the conversations (0: unknown).
	MachineCPU time.Duration
	Cores      int
	// LoadBefore and LoadAfter are the machine's load averages (1, 5, 15
	// minutes) around the conversations.
	LoadBefore, LoadAfter string
}

// MsgsPerSec is the replies completed per second of the conversations.
func (r Report) MsgsPerSec() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Messages) / r.Elapsed.Seconds()
}

// Latency summarises durations: how many, and percentiles by nearest rank.
type Latency struct {
	N                  int
	P50, P95, P99, Max time.Duration
}

// latencyOf summarises ds (which it sorts).
func latencyOf(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	rank := func(p float64) time.Duration {
		return ds[max(0, int(math.Ceil(p*float64(len(ds))))-1)]
	}
	return Latency{N: len(ds), P50: rank(0.50), P95: rank(0.95), P99: rank(0.99), Max: ds[len(ds)-1]}
}

// write prints the report as a small markdown table.
func (r Report) write(w io.Writer) {
	fmt.Fprintf(w, "\nload test of %s: %d customers for %v, tenant %s\n\n", r.URL, r.Customers, r.Duration, r.Tenant)
	rows := [][2]string{
		{"knowledge base", r.kbLine()},
		{"rate limits", r.Limits},
		{"sessions opened", fmt.Sprint(r.Sessions)},
		{"replies (done)", fmt.Sprintf("%d: %d answered, %d handed over", r.Messages, r.Messages-r.Transferred, r.Transferred)},
		{"throughput", fmt.Sprintf("%.1f msgs/s (over %v)", r.MsgsPerSec(), r.Elapsed.Round(time.Millisecond))},
		{"to first delta p50 / p95 / p99 / max", r.FirstDelta.String()},
		{"to done p50 / p95 / p99 / max", r.Done.String()},
		{"errors", fmt.Sprint(r.Errors.total())},
	}
	kinds := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		rows = append(rows, [2]string{"  " + k, fmt.Sprint(r.Errors[k])})
	}
	rows = append(rows, [2]string{"service RSS before / peak / after", r.rssLine()},
		[2]string{"service CPU", r.serviceCPULine()},
		[2]string{"load tool CPU (same machine)", r.cpuLine(r.LoadCPU)},
		[2]string{"machine CPU busy (everything)", r.machineLine()},
		[2]string{"load average before / after", r.LoadBefore + " / " + r.LoadAfter})
	width := len("figure")
	for _, row := range rows {
		width = max(width, len(row[0]))
	}
	fmt.Fprintf(w, "| %-*s | value |\n|%s|-------|\n", width, "figure", strings.Repeat("-", width+2))
	for _, row := range rows {
		fmt.Fprintf(w, "| %-*s | %s |\n", width, row[0], row[1])
	}
}

func (r Report) kbLine() string {
	how := fmt.Sprintf("seeded in %v", r.KB.Took.Round(time.Second/10))
	if r.KB.Reused {
		how = "reused, seeded by an earlier run"
	}
	return fmt.Sprintf("%s, %d chunks, %s", r.KB.ID, r.KB.Chunks, how)
}

func (r Report) rssLine() string {
	if r.PID == 0 {
		return "not measured: " + r.ProcNote
	}
	return fmt.Sprintf("%s / %s / %s (pid %d, %s)", mib(r.RSSBefore), mib(r.RSSPeak), mib(r.RSSAfter), r.PID, r.ProcName)
}

func (r Report) serviceCPULine() string {
	if r.PID == 0 {
		return "not measured"
	}
	line := r.cpuLine(r.ServiceCPU)
	if r.Messages > 0 {
		line += fmt.Sprintf(", %.1f ms per reply", float64(r.ServiceCPU)/float64(time.Millisecond)/float64(r.Messages))
	}
	return line
}

// cpuLine prints CPU time d and the cores it kept busy over the run.
func (r Report) cpuLine(d time.Duration) string {
	cores := 0.0
	if r.Elapsed > 0 {
		cores = d.Seconds() / r.Elapsed.Seconds()
	}
	return fmt.Sprintf("%.1f s (%.2f cores)", d.Seconds(), cores)
}

func (r Report) machineLine() string {
	if r.MachineCPU == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%s of %d cores", r.cpuLine(r.MachineCPU), r.Cores)
}

// String prints the percentiles in milliseconds.
func (l Latency) String() string {
	if l.N == 0 {
		return "none"
	}
	return fmt.Sprintf("%s / %s / %s / %s ms", ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
