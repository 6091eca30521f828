package client

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// A send cut before its first event, against the reference callee: the
// agent created and runs the task, and the client looks it up without
// sending the message again. Where the agent lists it, the turn resumes and
// its view equals an uncut run's; where it does not, the turn ends
// incomplete with the ids that find the task and the reason of the miss.
func TestOrphanLookup(t *testing.T) {
	t.Parallel()
	s := startCallee(t)
	base := agenttest.Trajectory(6)
	base.Name = "orphan"
	s.Register(base)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			ref := collect(t, mustSend(t, newForced(t, s, c, fastRetry), "orphan"))
			if ref.err != nil {
				t.Fatalf("uncut run: %v", ref.err)
			}
			var cc calls
			cl := newForced(t, s, c, fastRetry, cc.option())
			s.CutAfter(0, true)
			r := collect(t, mustSend(t, cl, "orphan"))
			if n := cc.count("SendStreamingMessage"); n != 1 {
				t.Fatalf("the message was sent %d times", n)
			}
			var inc *IncompleteError
			switch {
			case r.err == nil:
				if d := cmp.Diff(ref.view, r.view, cutViewOpts); d != "" {
					t.Errorf("view after the resume (-uncut +resumed):\n%s", d)
				}
				if cc.count("ListTasks") != 1 {
					t.Errorf("resumed without ListTasks?")
				}
			case errors.As(r.err, &inc):
				// No ListTasks here (a v0.3 agent): the error says how to
				// find the task.
				if inc.TaskID != "" || inc.MessageID == "" || inc.ContextID == "" {
					t.Errorf("incomplete without the ids: %+v", inc)
				}
				// The reference callee's task store lists the tasks of an
				// authenticated user only: it refuses ListTasks here, and
				// the error says so. (The resume itself is tested against
				// a peer that lists: a2a-tail's TestHostilePeers.)
				if !strings.Contains(r.err.Error(), "not found: ListTasks") {
					t.Errorf("the error does not say why the task was not found: %v", r.err)
				}
			default:
				t.Fatalf("stream: %v", r.err)
			}
		})
	}
}

func mustSend(t *testing.T, cl *Client, text string) *Stream {
	t.Helper()
	st, err := cl.Send(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}
