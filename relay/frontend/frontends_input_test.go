package frontend

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/schema"
)

func TestAGUIInterruptIDNamesTask(t *testing.T) {
	t.Parallel()
	for _, task := range []string{"t-1", "a:b:c", "0f3c9e2e-7b1a-4c55-9d1e-2f6a1c9b8e77"} {
		for n := range 3 {
			if got := aguiInterruptTask(aguiInterruptID(task, n)); got != task {
				t.Errorf("aguiInterruptTask(aguiInterruptID(%q, %d)) = %q", task, n, got)
			}
		}
	}
	for _, id := range []string{"", "a2a:", "a2a::1", "x:t:1", "other"} {
		if got := aguiInterruptTask(id); got != "" {
			t.Errorf("aguiInterruptTask(%q) = %q, want none", id, got)
		}
	}
}

// TestFrontIDsStable: the ids of a turn's items are a function of the task,
// the turn and the block — the same on every replica and reconnect — and
// differ between turns.
func TestFrontIDsStable(t *testing.T) {
	t.Parallel()
	var ids [2][]string
	for i := range ids {
		v := play(realisticReadings(), nil, func(*schema.View, *frontResult) {})
		for _, it := range frontItems(&v, (*frontIDs)(nil).forTurn(frontPrefix(mapTask, mapTurn)), nil) {
			ids[i] = append(ids[i], it.id)
		}
	}
	if diff := cmp.Diff(ids[0], ids[1]); diff != "" {
		t.Errorf("ids differ between two builds (-first +second):\n%s", diff)
	}
	if frontPrefix(mapTask, "turn-1") == frontPrefix(mapTask, "turn-2") {
		t.Error("two turns share an id prefix")
	}
}
