package main

import (
	"context"
	"runtime"
	"time"
)

// rssEvery is how often the service's memory is sampled during the
// conversations, for its peak.
const rssEvery = 250 * time.Millisecond

// meter takes the readings of the service's process (pid 0: none) and of
// this machine around the conversations.
type meter struct {
	pid                int
	load               string
	rss                int64
	serviceCPU, ownCPU time.Duration
	busy               time.Duration
	busyErr            error
	peak               chan int64
	stopSampling       context.CancelFunc
}

// startMeter takes the readings before and samples the service's memory
// until finish.
func startMeter(ctx context.Context, pid int) *meter {
	m := &meter{pid: pid, load: loadAverage(), rss: rssOf(pid), serviceCPU: cpuOf(pid), ownCPU: selfCPU(),
		peak: make(chan int64, 1)}
	m.busy, m.busyErr = machineBusy()
	sampling, stop := context.WithCancel(ctx)
	m.stopSampling = stop
	go func() { m.peak <- samplePeak(sampling, pid, m.rss) }()
	return m
}

// finish takes the readings after and puts both into rep.
func (m *meter) finish(rep *Report) {
	m.stopSampling()
	rep.RSSBefore, rep.RSSPeak, rep.RSSAfter = m.rss, <-m.peak, rssOf(m.pid)
	rep.RSSPeak = max(rep.RSSPeak, rep.RSSAfter)
	if m.pid != 0 {
		rep.ServiceCPU = cpuOf(m.pid) - m.serviceCPU
	}
	rep.LoadCPU = selfCPU() - m.ownCPU
	if after, err := machineBusy(); err == nil && m.busyErr == nil {
		rep.MachineCPU, rep.Cores = after-m.busy, runtime.NumCPU()
	}
	rep.LoadBefore, rep.LoadAfter = m.load, loadAverage()
}

// rssOf is the process's resident memory, or 0 when pid is 0 or gone.
func rssOf(pid int) int64 {
	if pid == 0 {
		return 0
	}
	b, _ := rssBytes(pid)
	return b
}

// cpuOf is the process's CPU time so far, or 0 when pid is 0 or gone.
func cpuOf(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	d, _ := cpuTime(pid)
	return d
}

// samplePeak reads the process's memory every rssEvery until ctx ends and
// returns the highest reading (at least floor).
func samplePeak(ctx context.Context, pid int, floor int64) int64 {
	peak := floor
	if pid == 0 {
		return peak
	}
	tick := time.NewTicker(rssEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return peak
		case <-tick.C:
			peak = max(peak, rssOf(pid))
		}
	}
}
