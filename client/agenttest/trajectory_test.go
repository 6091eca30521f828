package agenttest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

func TestTrajectoryKnobs(t *testing.T) {
	tests := []struct {
		name  string
		knobs []Knob
		check func(t *testing.T, sc Script)
	}{
		{"plain", nil, func(t *testing.T, sc Script) {
			if got := len(sc.Envelopes()); got != 30 {
				t.Errorf("envelopes = %d, want 30", got)
			}
			if descents(sc) != 0 || gaps(sc) != 0 {
				t.Errorf("descents, gaps = %d, %d; want 0, 0", descents(sc), gaps(sc))
			}
			if sc.Envelopes()[0].Seq != 1 || sc.Final != a2a.TaskStateCompleted {
				t.Errorf("first seq %d, final %v", sc.Envelopes()[0].Seq, sc.Final)
			}
		}},
		{"reorder", []Knob{Reorder(4)}, func(t *testing.T, sc Script) {
			if got := descents(sc); got != 4 {
				t.Errorf("out-of-order arrivals = %d, want 4", got)
			}
		}},
		{"duplicate", []Knob{Duplicate(3)}, func(t *testing.T, sc Script) {
			if got := len(sc.Envelopes()); got != 33 {
				t.Errorf("deliveries = %d, want 33", got)
			}
		}},
		{"skip", []Knob{SkipSeqs(5), StartSeq(1000)}, func(t *testing.T, sc Script) {
			if got := gaps(sc); got != 5 {
				t.Errorf("gaps = %d, want 5", got)
			}
			if sc.Envelopes()[0].Seq < 1000 {
				t.Errorf("first seq = %d, want >= 1000", sc.Envelopes()[0].Seq)
			}
		}},
		{"plaintext", []Knob{PlainText(4)}, func(t *testing.T, sc Script) {
			n := 0
			for _, st := range sc.Steps {
				if st.Envelope == nil && st.Text != "" {
					n++
				}
			}
			if n != 4 || len(sc.Envelopes()) != 30 {
				t.Errorf("plain-text steps = %d, envelopes = %d; want 4, 30", n, len(sc.Envelopes()))
			}
		}},
		{"oversize", []Knob{Oversize()}, func(t *testing.T, sc Script) {
			var raws []*a2a.Message
			for _, st := range sc.Steps {
				if st.Raw != nil {
					raws = append(raws, st.Raw)
				}
			}
			if len(raws) != 1 {
				t.Fatalf("raw steps = %d, want 1", len(raws))
			}
			r := envelope.FromMessage(raws[0])
			if !r.Fallback || !errors.Is(r.Err, envelope.ReasonChunkTooLarge) {
				t.Errorf("oversize reading: fallback=%v err=%v, want ErrChunkTooLarge", r.Fallback, r.Err)
			}
			if got := gaps(sc); got != 1 {
				t.Errorf("gaps = %d, want 1 (the oversize envelope's seq)", got)
			}
		}},
		{"end-pause", []Knob{EndIn(a2a.TaskStateRejected), PauseEvery(time.Millisecond), Named("x")}, func(t *testing.T, sc Script) {
			if sc.Final != a2a.TaskStateRejected || sc.Name != "x" || sc.Steps[3].Pause != time.Millisecond {
				t.Errorf("final %v name %q pause %v", sc.Final, sc.Name, sc.Steps[3].Pause)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := Trajectory(30, tt.knobs...)
			if err := sc.validate(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc, Trajectory(30, tt.knobs...)); diff != "" {
				t.Errorf("not deterministic (-first +second):\n%s", diff)
			}
			tt.check(t, sc)
		})
	}
}

// descents counts envelopes that arrive after a higher seq (seq orders the
// whole turn); duplicates are not counted.
func descents(sc Script) int {
	var hi int64
	n := 0
	for i, e := range sc.Envelopes() {
		if i > 0 && e.Seq < hi {
			n++
		}
		hi = max(hi, e.Seq)
	}
	return n
}

// gaps counts the seq values missing between the lowest and highest seq.
func gaps(sc Script) int {
	seen := map[int64]bool{}
	lo, hi := int64(1<<62), int64(-1<<62)
	for _, e := range sc.Envelopes() {
		seen[e.Seq] = true
		lo, hi = min(lo, e.Seq), max(hi, e.Seq)
	}
	return int(hi-lo+1) - len(seen)
}

func TestValidate(t *testing.T) {
	bad := map[string]Script{
		"two payloads": {Steps: []Step{{Text: "a", Raw: a2a.NewMessage(a2a.MessageRoleAgent)}}},
		"bad envelope": {Steps: []Step{{Envelope: &envelope.Envelope{V: 1, Kind: "nope"}}}},
		"bad final":    {Final: a2a.TaskStateWorking},
		"bad meta":     {Final: a2a.TaskStateCompleted, FinalMeta: map[string]any{"x": map[string]string{"a": "b"}}},
		"negative":     {Steps: []Step{{Text: "a", Repeat: -1}}},
	}
	for name, sc := range bad {
		if err := sc.validate(); err == nil {
			t.Errorf("%s: validate() = nil, want an error", name)
		}
	}
	if err := Realistic().validate(); err != nil {
		t.Errorf("Realistic: %v", err)
	}
}

// TestFaultyTrajectoryOverTheWire sends every knob at once and checks that
// a caller sees exactly the script: envelopes in wire order, the
// plain-text updates and the oversize block as text fallbacks.
func TestFaultyTrajectoryOverTheWire(t *testing.T) {
	s := startServer(t)
	sc := Trajectory(40, Named("faulty"), Reorder(3), Duplicate(3), SkipSeqs(2), PlainText(3), Oversize(), EndIn(a2a.TaskStateFailed))
	s.Register(sc)
	for _, c := range []combo{{a2a.TransportProtocolJSONRPC, V1}, {a2a.TransportProtocolHTTPJSON, V0}, {a2a.TransportProtocolGRPC, V0}} {
		t.Run(c.String(), func(t *testing.T) {
			events, err := collect(newClient(t, s, c).SendStreamingMessage(testCtx(t), userMessage("faulty")))
			if err != nil {
				t.Fatal(err)
			}
			envs, texts := envelopesIn(events)
			if diff := cmp.Diff(sc.Envelopes(), envs); diff != "" {
				t.Errorf("envelopes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(fallbackTexts(sc), texts); diff != "" || !strings.Contains(strings.Join(texts, "|"), "65537 bytes dropped") {
				t.Errorf("fallback texts (-want +got):\n%s", diff)
			}
			if st, _ := lastStatus(events); st != a2a.TaskStateFailed {
				t.Errorf("last state = %v, want failed", st)
			}
		})
	}
}

// fallbackTexts lists the texts a reader falls back to: the plain-text
// steps and the raw steps (here: the oversize envelope), per delivery.
func fallbackTexts(sc Script) []string {
	var out []string
	for _, st := range sc.Steps {
		text := st.Text
		if st.Raw != nil {
			text = envelope.MessageText(st.Raw)
		} else if st.Envelope != nil || text == "" {
			continue
		}
		for range st.Repeat + 1 {
			out = append(out, text)
		}
	}
	return out
}

func TestHistoryLimit(t *testing.T) {
	s := startServer(t, withHistoryLimit(3))
	s.Register(Trajectory(20, Named("long")))
	cl := newClient(t, s, combo{a2a.TransportProtocolJSONRPC, V1})
	ctx := testCtx(t)
	events, err := collect(cl.SendStreamingMessage(ctx, userMessage("long")))
	if err != nil {
		t.Fatal(err)
	}
	envs, _ := envelopesIn(events)
	if len(envs) != 20 {
		t.Errorf("streamed envelopes = %d, want 20 (the limit only trims the store)", len(envs))
	}
	task, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID(t, events)})
	if err != nil {
		t.Fatal(err)
	}
	if len(task.History) != 4 || task.History[0].Role != a2a.MessageRoleUser || envelope.MessageText(task.History[0]) != "long" {
		t.Errorf("history = %d messages (first %v), want the user message + 3", len(task.History), task.History[0].Role)
	}
}
