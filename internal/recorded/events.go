package recorded

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/ssewire"
)

// Events frames a recorded A2A SSE body with ssewire's strict reader and decodes each
// frame with a [Decoder] of format f (FormatAuto detects it). Events
// without data (comments, keep-alives) are skipped. A frame that cannot be
// framed or decoded ends the sequence with its error, "frame N: …": a
// recording is not a live peer, and applying what follows a broken frame
// would hide the break.
func Events(r io.Reader, f Format) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		fr := ssewire.NewStrictReader(r, ssewire.DefaultMaxEventBytes)
		dec := Decoder{Format: f}
		for n := 1; ; n++ {
			ev, err := fr.NextEvent()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, fmt.Errorf("frame %d: %w", n, err))
				return
			}
			if !ev.HasData {
				continue
			}
			e, _, err := dec.Decode(ev.Data)
			if err != nil {
				yield(nil, fmt.Errorf("frame %d: %w", n, err))
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}
