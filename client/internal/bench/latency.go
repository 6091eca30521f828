package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/tfrs/a2a-progress/merge"
)

// OpenCaps are merge caps under which every block of an n-update stream
// from a FrameServer is applied: the most work the merge can be given.
func OpenCaps(n int) merge.Caps {
	return merge.Caps{MaxBlocks: n + 16, MaxStreamKeys: n + 16}
}

// Latency streams text (n updates, paced) with impl ("raw" or "sdk") and
// returns, per working update, the time from its frame's arrival to its
// delivery. Each call builds its own client: the stamps are per response.
func Latency(ctx context.Context, t Target, impl, text string, n int) ([]time.Duration, error) {
	arr := NewArrivals(n + 2)
	out := make([]time.Duration, 0, n)
	var missing int64
	on := func(i int64) {
		// Frame 0 is the Task; update i is frame i.
		if d, ok := arr.Since(int(i)); ok {
			out = append(out, d)
		} else {
			missing++
		}
	}
	rd, err := NewReader(ctx, t, impl, arr.Client())
	if err != nil {
		return nil, err
	}
	_, err = rd.Send(ctx, text, on)
	_ = rd.Close()
	if err != nil {
		return nil, err
	}
	if missing > 0 || len(out) != n {
		return nil, fmt.Errorf("bench: %d updates, %d without an arrival stamp (%d frames stamped)", len(out), missing, arr.Frames())
	}
	return out, nil
}
