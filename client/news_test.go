package client

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
)

// A block a cap refused is news once: its replay is not, and neither is an
// earlier block of its stream key; a later one is, on every key.
func TestNewsCapped(t *testing.T) {
	var n news
	capped := func(key string, seq int64) bool {
		r := envelope.Reading{Envelope: envelope.Envelope{StreamKey: key, Seq: seq}}
		return n.reading(r, merge.Change{Effect: merge.DroppedCap})
	}
	steps := []struct {
		key string
		seq int64
	}{{"a", 1}, {"a", 2}, {"b", 1}, {"a", 2}, {"a", 1}, {"b", 1}, {"a", 3}, {"b", 5}, {"b", 4}, {"a", 3}}
	var got []bool
	for _, s := range steps {
		got = append(got, capped(s.key, s.seq))
	}
	want := []bool{true, true, true, false, false, false, true, true, false, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("news (-want +got):\n%s", diff)
	}
}
