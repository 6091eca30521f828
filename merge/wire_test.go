package merge

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
)

func TestViewJSONRoundTrip(t *testing.T) {
	turn := applyAll(Caps{MaxOutputBytes: 6},
		run("c1", 1, call("grep")),
		run("c1", 2, chunk("grep", "aaaa\n")),
		run("c1", 4, chunk("grep", "bbbb\n")),
		fallback("msg:1", "x", envelope.ReasonNoEnvelope),
		env("c1", 5, envelope.StatusAborted, errp("killed")),
	)
	want := turn.View()
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got schema.View
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestResultString(t *testing.T) {
	got := map[Effect]string{}
	for _, r := range []Effect{Applied, Duplicate, Conflict, DroppedSealed, DroppedCap, Invalid, 0, 99} {
		got[r] = r.String()
	}
	want := map[Effect]string{Applied: "applied", Duplicate: "duplicate", Conflict: "conflict",
		DroppedSealed: "dropped_sealed", DroppedCap: "dropped_cap", Invalid: "invalid", 0: "unknown", 99: "unknown"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
}

// An at is kept exactly across its whole range — the epoch is a time like
// any other, not "unknown" — and only a time outside the range is dropped
// by a Receiver given one in Go (the JSON decoder refuses it).
func TestAtRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   time.Time
		want time.Time
	}{
		{"the epoch", time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC()},
		{"the first kept", schema.MinAt, schema.MinAt},
		{"the last kept", schema.MaxAt, schema.MaxAt},
		{"before the range", schema.MinAt.Add(-time.Nanosecond), time.Time{}},
		{"year 3000", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}},
		{"unknown", time.Time{}, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReceiver("t1", Caps{})
			b := schema.Block{Key: schema.Key{Seq: 1}, Kind: envelope.KindText, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "a"}, Source: schema.SourceEnvelope}
			if got := r.Apply(schema.Op{Type: schema.OpBlock, Task: "t1", Turn: "m1", At: tc.at, Block: b}); got != Applied {
				t.Fatalf("Apply = %v", got)
			}
			v := r.View()
			if d := cmp.Diff(tc.want, v.Blocks[0].At); d != "" {
				t.Errorf("view at (-want +got):\n%s", d)
			}
			if tc.want.IsZero() {
				return
			}
			data, err := json.Marshal(r.Ops("m1")[0])
			if err != nil {
				t.Fatal(err)
			}
			var back schema.Op
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("%s: %v", data, err)
			}
			if !back.At.Equal(tc.want) {
				t.Errorf("decoded at %v, want %v", back.At, tc.want)
			}
		})
	}
}

// overSoftLimit is content for a placed block as for an envelope
// (PROTOCOL.md §6.1): the same fallback with another flag is a conflict.
func TestPlacedOverSoftLimitIsContent(t *testing.T) {
	r := NewReceiver("t1", Caps{})
	fb := schema.Block{Key: schema.Key{ID: "msg:m"}, Kind: envelope.KindText, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "a"},
		Source: schema.SourceFallback, Reason: envelope.ReasonNoEnvelope, Ordinal: 1}
	other := fb
	other.OverSoftLimit = true
	got := []Effect{
		r.Apply(schema.Op{Type: schema.OpBlock, Task: "t1", Turn: "m1", Block: fb}),
		r.Apply(schema.Op{Type: schema.OpBlock, Task: "t1", Turn: "m1", Block: fb}),
		r.Apply(schema.Op{Type: schema.OpBlock, Task: "t1", Turn: "m1", Block: other}),
	}
	if d := cmp.Diff([]Effect{Applied, Duplicate, Conflict}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

// A fallback reading without a fallback reason is no fallback a receiver
// could decode: the Turn refuses it too.
func TestTurnFallbackNeedsReason(t *testing.T) {
	for _, reason := range []envelope.Reason{"", "gremlins", envelope.ReasonExtraEnvelope} {
		turn := NewTurn("t1", "m1", Caps{})
		r := envelope.Reading{Fallback: true, ID: "msg:x", Reason: reason,
			Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "x"}}}
		if got := turn.Apply(r).Effect; got != Invalid {
			t.Errorf("reason %q: %v, want Invalid", reason, got)
		}
	}
}

var at0 = time.Date(2026, 12, 1, 10, 0, 0, 250_000_000, time.UTC)
