package heldcall

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// seq yields n status updates numbered from 1, then err when not nil, and
// records how far it was pulled and whether it returned.
func seq(n int, err error, pulled *[]string, done *bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		defer func() { *done = true }()
		for i := range n {
			id := a2a.TaskID(string(rune('a' + i)))
			*pulled = append(*pulled, string(id))
			if !yield(&a2a.TaskStatusUpdateEvent{TaskID: id}, nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

func ids(c *Call) (got []string, err error) {
	for ev, e := range c.Events() {
		if e != nil {
			return got, e
		}
		got = append(got, string(ev.TaskInfo().TaskID))
	}
	return got, nil
}

// The taker sees every event once, the first one included, and the
// source is pulled exactly once per event.
func TestTakenCallReplaysTheFirstEvent(t *testing.T) {
	var pulled []string
	var done bool
	boom := errors.New("boom")
	canceled := false
	c := Open(seq(3, boom, &pulled, &done), nil, func() { canceled = true })
	if ev, err, ok := c.First(); !ok || err != nil || ev.TaskInfo().TaskID != "a" {
		t.Fatalf("First() = %v, %v, %v; want task a", ev, err, ok)
	}
	if d := cmp.Diff([]string{"a"}, pulled); d != "" {
		t.Fatalf("pulled before Take (-want +got):\n%s", d)
	}
	if !c.Take() {
		t.Fatal("Take() = false on an idle call")
	}
	got, err := ids(c)
	c.Close()
	if d := cmp.Diff([]string{"a", "b", "c"}, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if !errors.Is(err, boom) || !done || !canceled {
		t.Errorf("err %v, source returned %v, context canceled %v; want boom, true, true", err, done, canceled)
	}
	c.CloseIdle() // a taken call is the taker's: nothing happens
}

// An idle release ends the call and its hook once; a later Take fails, a
// Hook set after the release runs at once.
func TestIdleReleaseEndsTheCall(t *testing.T) {
	var pulled []string
	var done bool
	ctx, cancel := context.WithCancel(t.Context())
	c := Open(seq(5, nil, &pulled, &done), nil, cancel)
	unhooked := 0
	c.Hook(func() { unhooked++ })
	c.CloseIdle()
	c.CloseIdle()
	if c.Take() {
		t.Fatal("Take() = true after an idle release")
	}
	if d := cmp.Diff([]string{"a"}, pulled); d != "" {
		t.Errorf("pulled (-want +got):\n%s", d)
	}
	if !done || ctx.Err() == nil || unhooked != 1 {
		t.Errorf("source returned %v, context %v, unhooked %d times; want true, canceled, 1", done, ctx.Err(), unhooked)
	}
	late := 0
	c.Hook(func() { late++ })
	if late != 1 {
		t.Errorf("a hook set after the release ran %d times, want 1", late)
	}
}
