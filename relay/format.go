package relay

import (
	"net/http"

	"github.com/tfrs/a2a-progress/relay/internal/sse"
)

// Event is one op on its way to a subscriber (see [sse.Event]).
type Event = sse.Event

// An Encoder writes the events of one subscription in one wire format (see
// [sse.Encoder]: Begin, SnapshotStart, SnapshotEnd, Op, End). The relay
// calls it from the subscription's goroutine only, so it may keep state (a
// format whose client checks event order tracks what it sent).
type Encoder = sse.Encoder

// EventWriter writes Server-Sent Events to one response (see
// [sse.EventWriter]): an [Encoder] writes through it, the relay flushes
// after each batch.
type EventWriter = sse.EventWriter

// NewEventWriter returns an EventWriter writing to w: what an [Encoder]'s
// own tests write through.
func NewEventWriter(w http.ResponseWriter) *EventWriter { return sse.NewEventWriter(w) }

// A Format makes the Encoder of one subscription. r is the subscriber's
// request (a format may read its own query parameters); an error refuses
// the request with 400 and the error's text.
type Format func(r *http.Request, task string) (Encoder, error)

// FormatOps is the name of the default format: each op is one plain SSE
// event (no event: field, so EventSource.onmessage gets it) whose data is the
// op's JSON and whose id is the cursor to resume after it.
const FormatOps = "ops"

// builtinFormats are the formats every Handler serves by their ?format=
// name, besides those given with WithFormat (package relay/frontend's, for
// one).
var builtinFormats = map[string]Format{
	FormatOps: func(*http.Request, string) (Encoder, error) { return opsEncoder{}, nil },
}

type opsEncoder struct{}

func (opsEncoder) Begin(http.Header, *EventWriter) error { return nil }
func (opsEncoder) SnapshotStart(*EventWriter) error      { return nil }
func (opsEncoder) SnapshotEnd(*EventWriter) error        { return nil }
func (opsEncoder) Op(ew *EventWriter, ev Event) error    { return ew.Event(ev.ID, "", ev.JSON) }
func (opsEncoder) End(*EventWriter, bool) error          { return nil }
