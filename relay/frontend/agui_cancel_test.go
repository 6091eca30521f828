package frontend_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/relay/frontend"
)

// A canceled turn ends the AG-UI run with AG-UI 1.0's own end state —
// RUN_FINISHED with outcome cancelled — not RUN_ERROR: the stock
// @ag-ui/client accepts it, fails nothing and warns about nothing.
func TestAGUICanceled(t *testing.T) {
	t.Parallel()
	frontend.FrontendsNode(t)
	rig := newFrontRig(t, nil)
	sc := frontScript("agui-canceled", a2a.TaskStateCanceled, "stopped by the user", "")
	rig.agent.Register(sc)
	var res frontend.AGUIResult
	frontend.RunHarness(t, "agui.mjs", map[string]any{"url": rig.url + "/ag-ui", "threadId": "thread-canceled",
		"messages": []any{map[string]any{"id": "u-canceled", "role": "user", "content": sc.Name}}}, &res)
	type end struct {
		Last     string
		Outcome  string
		RunError bool
		Error    bool
		Warnings []string
	}
	got := end{RunError: res.Run.RunError != nil, Error: res.Run.Error != nil}
	if len(res.Warnings) > 0 {
		got.Warnings = res.Warnings
	}
	if n := len(res.Run.Events); n > 0 {
		got.Last = res.Run.Events[n-1]
	}
	if res.Run.Finished != nil {
		got.Outcome = res.Run.Finished.Outcome
	}
	if d := cmp.Diff(end{Last: "RUN_FINISHED", Outcome: "cancelled"}, got); d != "" {
		t.Errorf("the end of a canceled run (-want +got):\n%s", d)
	}
}
