package client

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// A Stream that Send returned and nobody iterated or closed holds its call
// open (the read-ahead's pulled iterator, a connection). Dropping it
// releases everything on the first of: its context ending, Client.Close,
// its garbage collection. Each case checks with goleak that no goroutine
// of the call is left (the peer's handler, hanging until the client
// leaves, ends too: the connection is closed).
func TestDroppedStreamReleases(t *testing.T) {
	for _, how := range []string{"context", "client close", "garbage collection"} {
		t.Run(how, func(t *testing.T) {
			hanging := func(w *sseWriter) {
				w.event(taskEv(a2a.TaskStateWorking, userMsg()))
				w.hang()
			}
			a := newRawAgent(t, hanging)
			cl := a.client(t)
			before := goleak.IgnoreCurrent()
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			send(t, cl, ctx) // the Stream is dropped on return
			switch how {
			case "context":
				cancel()
			case "client close":
				_ = cl.Close()
			}
			// Without a release the leak is permanent; the checks retry
			// (and collect) until the goroutines are gone.
			deadline := time.Now().Add(testdep.Budget(20 * time.Second))
			for {
				runtime.GC()
				err := goleak.Find(before)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the dropped stream's goroutines are left: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

//go:noinline
func send(t *testing.T, cl *Client, ctx context.Context) {
	st, err := cl.SendText(ctx, "go")
	if err != nil || st.TaskID() != rawTask {
		t.Fatalf("send: %v, task %q", err, st.TaskID())
	}
}

// A stream whose idle call was released still iterates: it ends at once
// with why — the context's error, or the client's close.
func TestReleasedStreamEnds(t *testing.T) {
	for _, how := range []string{"context", "client close"} {
		t.Run(how, func(t *testing.T) {
			a := newRawAgent(t, func(w *sseWriter) {
				w.event(taskEv(a2a.TaskStateWorking, userMsg()))
				w.hang()
			})
			cl := a.client(t)
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			st, _ := cl.SendText(ctx, "go")
			want := context.Canceled
			if how == "context" {
				cancel()
			} else {
				_ = cl.Close()
				want = errClientClosed
			}
			r := collect(t, st)
			if !errors.Is(r.err, want) {
				t.Errorf("err = %v, want %v", r.err, want)
			}
		})
	}
}
