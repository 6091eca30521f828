package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A peer that cuts its stream in a loop gets one reconnect notice per
// noticeEvery, the next one counting those held back.
func TestReconnectNoticesAreRateLimited(t *testing.T) {
	var l noticeLimit
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	type got struct {
		Held int
		OK   bool
	}
	var g []got
	for _, at := range []time.Duration{0, time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second, 11 * time.Second, 25 * time.Second} {
		n, ok := l.allow(t0.Add(at))
		g = append(g, got{n, ok})
	}
	want := []got{{0, true}, {0, false}, {0, false}, {0, false}, {3, true}, {0, false}, {1, true}}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}
