package web

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestAGUIReconnectAfterAbort runs withTaskReconnect with the real
// @ag-ui/client (relay/testdata/frontends, pinned by its lockfile): after
// abortRun(), connectAgent() reaches the task's events endpoint and applies
// its message. (With the HttpAgent's aborted controller it resolved at once
// with nothing, and the endpoint was never asked.)
func TestAGUIReconnectAfterAbort(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "testdata", "frontends")
	node := testdep.NPM(t, dir, "the check of agui-reconnect.js with @ag-ui/client")
	out, err := exec.Command(node, "testdata/agui-abort.mjs", filepath.Join(dir, "node_modules", "@ag-ui", "client", "dist", "index.mjs")).Output()
	if err != nil {
		t.Fatalf("node testdata/agui-abort.mjs: %v\n%s", err, out)
	}
	type message struct{ ID, Role, Content string }
	var got struct {
		Task     string
		RunEnd   string
		Requests []string
		Connect  struct {
			NewMessages []message
			Error       string
		}
		Warnings []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := got
	want.Task = "task-1"
	want.Requests = []string{"POST /run", "POST /tasks/task-1/events?format=ag-ui"}
	want.Connect.NewMessages = []message{{"m1", "assistant", "still working"}}
	want.Connect.Error = ""
	want.Warnings = []string{}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("connectAgent() after abortRun() (-want +got):\n%s", d)
	}
}
