package relay

import (
	"net/http"

	"github.com/tfrs/a2a-progress/schema"
)

// Event is one op on its way to a subscriber.
type Event struct {
	// Op is the op.
	Op schema.Op
	// JSON is Op's JSON form, encoded once for every subscriber. It is
	// shared: do not modify it.
	JSON []byte
	// ID is the cursor to send with the event, "" when the event must not
	// move the reader's cursor (a snapshot's ops before its last one: a cut
	// in the middle of a snapshot must give a snapshot again on reconnect).
	ID string
	// Snapshot is true for the ops of a snapshot — the view as it is, sent
	// to a subscriber whose cursor the relay could not resume from — and
	// false for ops sent as they arrive.
	Snapshot bool
}

// An Encoder writes the events of one subscription in one wire format. The
// relay calls it from the subscription's goroutine only, so it may keep
// state (a format whose client checks event order tracks what it sent).
type Encoder interface {
	// Begin is called once, before any event, with the response headers
	// set (text/event-stream) and not yet sent: it may set more in h, then
	// write opening events (its first write sends the headers).
	Begin(h http.Header, ew *EventWriter) error
	// SnapshotStart and SnapshotEnd bracket the events of a snapshot
	// (SnapshotEnd also when the snapshot held no op).
	SnapshotStart(ew *EventWriter) error
	SnapshotEnd(ew *EventWriter) error
	// Op writes one op.
	Op(ew *EventWriter, ev Event) error
	// End is called when the response ends normally: settled is true when
	// the task's latest turn has its result, false when the relay ends the
	// response for another reason (upstream lost, subscriber too slow,
	// shutdown) and the reader should reconnect.
	End(ew *EventWriter, settled bool) error
}

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
