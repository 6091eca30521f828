package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
)

// ProcMemory is the resident memory of this process, from
// /proc/self/status (Linux): VmRSS now and VmHWM, its peak since start.
type ProcMemory struct {
	RSS, HWM uint64 // bytes
}

// ReadProcMemory reads /proc/self/status; off Linux it returns an error.
func ReadProcMemory() (ProcMemory, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ProcMemory{}, fmt.Errorf("bench: %w", err)
	}
	var m ProcMemory
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *uint64
		switch string(k) {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.HWM
		default:
			continue
		}
		f := bytes.Fields(v) // "1234 kB"
		if len(f) == 2 && string(f[1]) == "kB" {
			kb, err := strconv.ParseUint(string(f[0]), 10, 64)
			if err == nil {
				*dst = kb << 10
			}
		}
	}
	if m.RSS == 0 || m.HWM == 0 {
		return m, fmt.Errorf("bench: no VmRSS/VmHWM in /proc/self/status")
	}
	return m, nil
}

// HeapPeak samples the Go heap while a stream runs: call Sample now and
// then (it stops the world briefly, so not per event), read Peak at the
// end. HeapInuse includes garbage not yet collected: what the process
// really holds.
type HeapPeak struct {
	Peak uint64
	ms   runtime.MemStats
}

// Sample reads the heap and keeps the highest HeapInuse.
func (h *HeapPeak) Sample() {
	runtime.ReadMemStats(&h.ms)
	h.Peak = max(h.Peak, h.ms.HeapInuse)
}

// MiB formats bytes in MiB.
func MiB(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }
