package ssewire

import (
	"errors"
	"io"
	"testing"

	"github.com/tfrs/a2a-progress/internal/sseconform"
)

// endOf classifies a reader's last error for the conformance table.
func endOf(err error) sseconform.End {
	switch {
	case err == io.EOF:
		return sseconform.Clean
	case errors.Is(err, ErrEventTooLarge):
		return sseconform.TooLarge
	case errors.Is(err, ErrTruncated):
		return sseconform.Truncated
	}
	return sseconform.Other
}

// The live-stream reader (the client's fast path) passes the table with
// a2a-go's choices: data only, a cut-short last event yielded.
func TestConformanceNext(t *testing.T) {
	sseconform.Run(t, sseconform.Rules{DataOnly: true, Lenient: true}, func(body io.Reader, max int) ([]sseconform.Event, sseconform.End) {
		rd := NewReader(body, max)
		var out []sseconform.Event
		for {
			data, err := rd.Next()
			if err != nil {
				return out, endOf(err)
			}
			out = append(out, sseconform.Event{Data: string(data), HasData: true})
		}
	})
}

// The strict reader (recordings, /v1/query) passes it with every field.
func TestConformanceNextEvent(t *testing.T) {
	sseconform.Run(t, sseconform.Rules{}, func(body io.Reader, max int) ([]sseconform.Event, sseconform.End) {
		rd := NewStrictReader(body, max)
		var out []sseconform.Event
		for {
			ev, err := rd.NextEvent()
			if err != nil {
				return out, endOf(err)
			}
			out = append(out, sseconform.Event{ID: ev.ID, Event: ev.Event, Data: string(ev.Data), Retry: ev.Retry, HasData: ev.HasData})
		}
	})
}
