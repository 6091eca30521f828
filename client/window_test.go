package client

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/google/go-cmp/cmp"
)

// stallTransport is an in-process a2a-go transport whose calls never
// answer: each waits until its context ends. It is the peer that stalls
// every subscription and every GetTask, with no socket, so that the retry
// window runs in a synctest bubble on its fake clock.
type stallTransport struct {
	a2aclient.Transport // nil: a call the test does not expect panics
	// refuse: subscriptions are refused at once, only GetTask stalls.
	refuse bool

	mu    sync.Mutex
	calls []string
}

func (f *stallTransport) record(m string) {
	f.mu.Lock()
	f.calls = append(f.calls, m)
	f.mu.Unlock()
}

func (f *stallTransport) SubscribeToTask(ctx context.Context, _ a2aclient.ServiceParams, _ *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	f.record("SubscribeToTask")
	return func(yield func(a2a.Event, error) bool) {
		if f.refuse {
			yield(nil, a2a.ErrTaskNotFound)
			return
		}
		<-ctx.Done()
		yield(nil, context.Cause(ctx))
	}
}

func (f *stallTransport) GetTask(ctx context.Context, _ a2aclient.ServiceParams, _ *a2a.GetTaskRequest) (*a2a.Task, error) {
	f.record("GetTask")
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func (f *stallTransport) Destroy() error { return nil }

// The retry window is a deadline: a peer whose subscriptions and GetTasks
// stall — each would wait for the idle timeout, two minutes — ends the
// turn incomplete when the window has passed, not after as many tries as
// the window's backoff covers, each as slow as the peer likes.
func TestRetryWindowIsADeadline(t *testing.T) {
	for _, tc := range []struct {
		name           string
		window, within time.Duration
		refuse         bool
	}{
		{"stalled subscriptions 30s", 30 * time.Second, 45 * time.Second, false},
		{"stalled subscriptions 3m", 3 * time.Minute, 4 * time.Minute, false}, // a2a-tail's default --retry-for
		{"refused subscriptions, stalled GetTask 30s", 30 * time.Second, 45 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &stallTransport{refuse: tc.refuse}
				ac, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface("http://stall.invalid", a2a.TransportProtocolJSONRPC)},
					a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, a2aclient.TransportFactoryFn(func(context.Context, *a2a.AgentCard, *a2a.AgentInterface) (a2aclient.Transport, error) {
						return f, nil
					})))
				if err != nil {
					t.Fatal(err)
				}
				cl := Wrap(ac, WithRetry(DefaultMaxAttempts, 0, 10*time.Second), WithRetryFor(tc.window))
				start := time.Now()
				st, _ := cl.Follow(t.Context(), "t1")
				var got error
				for _, err := range st.Updates() {
					if err != nil {
						got = err
					}
				}
				took := time.Since(start)
				if !errors.Is(got, ErrIncomplete) || !errors.Is(got, ErrNoProgress) {
					t.Errorf("err = %v, want incomplete with ErrNoProgress", got)
				}
				if took > tc.within {
					t.Errorf("took %v, want at most %v", took, tc.within)
				}
				// The first call that stalls takes the window to its
				// deadline: the subscription (the GetTask after it finds
				// the window spent at once), or the GetTask.
				if diff := cmp.Diff([]string{"SubscribeToTask", "GetTask"}, f.calls); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
				_ = cl.Close()
			})
		})
	}
}

// newsTransport streams a task that brings news once a minute for ten
// minutes, then completes.
type newsTransport struct {
	stallTransport
}

func (f *newsTransport) SubscribeToTask(ctx context.Context, _ a2aclient.ServiceParams, _ *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	f.record("SubscribeToTask")
	return func(yield func(a2a.Event, error) bool) {
		info := a2a.TaskInfo{TaskID: "t1", ContextID: "c1"}
		if !yield(&a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) {
			return
		}
		for i := range 10 {
			select {
			case <-ctx.Done():
				yield(nil, context.Cause(ctx))
				return
			case <-time.After(time.Minute):
			}
			if !yield(working(int64(i+1), "news"), nil) {
				return
			}
		}
		yield(a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted, &a2a.Message{ID: "f", Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{a2a.NewTextPart("done")}}), nil)
	}
}

// The window bounds the time without news, not a stream: a subscription
// that brings news streams on past the deadline, uncut.
func TestRetryWindowSparesAStreamWithNews(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &newsTransport{}
		ac, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface("http://news.invalid", a2a.TransportProtocolJSONRPC)},
			a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, a2aclient.TransportFactoryFn(func(context.Context, *a2a.AgentCard, *a2a.AgentInterface) (a2aclient.Transport, error) {
				return f, nil
			})))
		if err != nil {
			t.Fatal(err)
		}
		cl := Wrap(ac, WithRetryFor(30*time.Second), WithIdleTimeout(0))
		st, _ := cl.Follow(t.Context(), "t1")
		var got error
		for _, err := range st.Updates() {
			if err != nil {
				got = err
			}
		}
		if got != nil {
			t.Fatalf("err = %v, want the turn completed", got)
		}
		if diff := cmp.Diff([]string{"SubscribeToTask"}, f.calls); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		_ = cl.Close()
	})
}

// silentSendTransport answers a send with the task, then goes silent; its
// subscriptions and GetTasks stall.
type silentSendTransport struct {
	stallTransport
}

func (f *silentSendTransport) SendStreamingMessage(ctx context.Context, _ a2aclient.ServiceParams, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	f.record("SendStreamingMessage")
	return func(yield func(a2a.Event, error) bool) {
		if !yield(&a2a.Task{ID: "t1", ContextID: req.Message.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil) {
			return
		}
		<-ctx.Done()
		yield(nil, context.Cause(ctx))
	}
}

// A send whose stream goes silent is cut when the idle timeout notices,
// but the cut happened at its last event: the window counts from there,
// so with a2a-tail's defaults (idle 2m, --retry-for 3m) the turn ends
// within 4 minutes of going silent, not 2 + 3.
func TestRetryWindowCountsFromTheSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &silentSendTransport{}
		ac, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface("http://silent.invalid", a2a.TransportProtocolJSONRPC)},
			a2aclient.WithTransport(a2a.TransportProtocolJSONRPC, a2aclient.TransportFactoryFn(func(context.Context, *a2a.AgentCard, *a2a.AgentInterface) (a2aclient.Transport, error) {
				return f, nil
			})))
		if err != nil {
			t.Fatal(err)
		}
		cl := Wrap(ac, WithIdleTimeout(2*time.Minute), WithRetryFor(3*time.Minute))
		start := time.Now()
		st, err := cl.SendText(t.Context(), "hello")
		if err != nil {
			t.Fatal(err)
		}
		var got error
		for _, err := range st.Updates() {
			if err != nil {
				got = err
			}
		}
		if took := time.Since(start); took > 4*time.Minute || !errors.Is(got, ErrIncomplete) {
			t.Errorf("took %v with %v, want incomplete within 4m", took, got)
		}
		_ = cl.Close()
	})
}
