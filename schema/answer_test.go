package schema

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
)

func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Result
		want string
	}{
		{"reply", Result{Reply: "hi", Artifacts: []Artifact{{ID: "a", Text: "x"}}}, "hi"},
		{"artifacts only", Result{Artifacts: []Artifact{{ID: "a", Text: "x"}, {ID: "b"}, {ID: "c", Text: "y\n"}}}, "x\ny\n"},
		{"neither", Result{Artifacts: []Artifact{{ID: "a"}}}, ""},
		{"nothing", Result{}, ""},
	} {
		if got := tc.r.Answer(); got != tc.want {
			t.Errorf("%s: Answer() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A program that builds blocks in Go (a bridge from another protocol, a
// test double) learns from Validate why one is not a block a Turn makes.
func TestBlockValidate(t *testing.T) {
	ok := Block{Key: Key{StreamKey: "c1", Seq: 1}, Kind: envelope.KindText, Status: envelope.StatusRunning,
		Payload: envelope.Text{Text: "a"}, Source: SourceEnvelope}
	wrongPayload := ok
	wrongPayload.Payload = envelope.Thinking{Text: "a"}
	fallbackWithSeq := ok
	fallbackWithSeq.Source, fallbackWithSeq.Key, fallbackWithSeq.Reason = SourceFallback, Key{ID: "m", Seq: 3}, envelope.ReasonNoEnvelope
	var got []string
	for _, b := range []Block{ok, wrongPayload, fallbackWithSeq} {
		err := b.Validate()
		if err != nil && !errors.Is(err, ErrBadOp) {
			t.Errorf("%v does not wrap ErrBadOp", err)
		}
		got = append(got, errString(err))
	}
	want := []string{"",
		`schema: bad op: block "c1"/1/"" is not a valid envelope text block`,
		`schema: bad op: block ""/3/"m" is not a valid fallback text block`}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Validate (-want +got):\n%s", d)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
