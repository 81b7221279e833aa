// Package cputime measures CPU time for the benchmarks, which report it
// next to wall-clock latency: on a shared machine the wall clock also
// counts time spent waiting for a core.
package cputime
