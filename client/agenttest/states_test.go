package agenttest

import (
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

// interruptMeta is an `_interrupt` object (PROTOCOL.md §5.2).
func interruptMeta() map[string]any {
	return map[string]any{"_interrupt": map[string]any{
		"message": "need a decision",
		"items": []any{map[string]any{
			"toolCallId": "call-9", "toolName": "ask_colleague", "message": "which warehouse?",
		}},
	}}
}

func TestFinalStatesEveryTransport(t *testing.T) {
	s := startServer(t)
	states := []a2a.TaskState{
		a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected,
		a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, "",
	}
	for _, st := range states {
		sc := Trajectory(6, EndIn(st), Named("final-"+string(st)))
		if st == a2a.TaskStateInputRequired {
			sc.FinalMeta = interruptMeta()
		}
		s.Register(sc)
	}
	for _, c := range allCombos() {
		for _, st := range states {
			t.Run(c.String()+"/"+string(st), func(t *testing.T) {
				sc := Trajectory(6, EndIn(st))
				ctx := testCtx(t)
				cl := newClient(t, s, c)
				events, err := collect(cl.SendStreamingMessage(ctx, userMessage("final-"+string(st))))
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				envs, _ := envelopesIn(events)
				if diff := cmp.Diff(sc.Envelopes(), envs); diff != "" {
					t.Errorf("envelopes (-want +got):\n%s", diff)
				}
				got, msg := lastStatus(events)
				want := st
				if st == "" {
					want = a2a.TaskStateWorking // silent cut: the stream ends on the last working update
				}
				if got != want {
					t.Fatalf("last state = %q, want %q", got, want)
				}
				if st != "" && envelope.MessageText(msg) != sc.FinalText {
					t.Errorf("final text = %q, want %q", envelope.MessageText(msg), sc.FinalText)
				}
				if st == a2a.TaskStateInputRequired {
					if diff := cmp.Diff(interruptMeta(), msg.Metadata); diff != "" {
						t.Errorf("_interrupt metadata (-want +got):\n%s", diff)
					}
				}

				// What a later SubscribeToTask sees.
				id := taskID(t, events)
				sub, err := collect(cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}))
				switch st {
				case "", a2a.TaskStateAuthRequired:
					// The execution is still open: snapshot, then a clean end.
					if err != nil || len(sub) != 1 {
						t.Fatalf("subscribe = %d events, %v; want the snapshot only", len(sub), err)
					}
					task, ok := sub[0].(*a2a.Task)
					if !ok || task.Status.State != want {
						t.Fatalf("subscribe snapshot = %#v, want a Task in %q", sub[0], want)
					}
					hist, _ := envelopesIn(historyEvents(task))
					if diff := cmp.Diff(sc.Envelopes(), hist); st == "" && diff != "" {
						t.Errorf("snapshot history envelopes (-want +got):\n%s", diff)
					}
				default:
					// Settled (terminal or input-required): a2a-go refuses
					// with ErrTaskNotFound, except in the short window before
					// it unregisters the finished execution, where it sends
					// the settled snapshot and ends.
					if err == nil {
						for _, ev := range sub {
							if task, ok := ev.(*a2a.Task); !ok || task.Status.State != st {
								t.Fatalf("subscribe to settled task: %d events, got %#v; want ErrTaskNotFound or the settled Task", len(sub), ev)
							}
						}
						if len(sub) == 0 {
							t.Fatal("subscribe to settled task: no events and no error")
						}
						t.Logf("subscribe in the unregistering window: %d settled snapshot(s)", len(sub))
					} else if !errors.Is(err, a2a.ErrTaskNotFound) {
						t.Fatalf("subscribe to settled task: err = %v, want ErrTaskNotFound", err)
					}
				}
			})
		}
	}
}

// historyEvents turns a task's history into working updates, the form
// envelopesIn reads.
func historyEvents(task *a2a.Task) []a2a.Event {
	var out []a2a.Event
	for _, m := range task.History {
		if m.Role != a2a.MessageRoleAgent {
			continue
		}
		out = append(out, &a2a.TaskStatusUpdateEvent{TaskID: task.ID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: m}})
	}
	if m := task.Status.Message; m != nil && task.Status.State == a2a.TaskStateWorking {
		out = append(out, &a2a.TaskStatusUpdateEvent{TaskID: task.ID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: m}})
	}
	return out
}

func TestSubscribeUnknownTask(t *testing.T) {
	s := startServer(t)
	for _, c := range allCombos() {
		t.Run(c.String(), func(t *testing.T) {
			cl := newClient(t, s, c)
			events, err := collect(cl.SubscribeToTask(testCtx(t), &a2a.SubscribeToTaskRequest{ID: "no-such-task"}))
			if len(events) != 0 || !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("subscribe unknown = %d events, %v; want ErrTaskNotFound", len(events), err)
			}
			t.Logf("%v: %v", c, err)
		})
	}
}
