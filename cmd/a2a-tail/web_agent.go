package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
)

// The backoff of resolving the agent card while the agent is not up: the
// first retry after webAgentRetryMin, doubling up to webAgentRetryMax. The
// page counts down to the next attempt, so the cap is what a person waits
// at most after the agent came up; one card request per 5 s is nothing to
// an agent that is down.
const (
	webAgentRetryMin = 250 * time.Millisecond
	webAgentRetryMax = 5 * time.Second
)

// agentState is what `a2a-tail web` knows of its agent: GET /agent answers
// it, and an answer that needed the agent and could not have it carries it.
type agentState struct {
	// State is "connecting" (no card yet, first attempt running),
	// "unreachable" (the last attempt failed; the next is at Retry) or "up".
	State string `json:"state"`
	// URL is the agent's URL as given, without a password or query (the
	// page names it).
	URL string `json:"url,omitempty"`
	// Reason says in a few words why the last attempt failed (state
	// "unreachable"); Error is the whole error.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Attempts counts the card requests made.
	Attempts int `json:"attempts"`
	// Retry is when the next attempt starts (state "unreachable"), and
	// Wait the whole seconds until then when the state was read: the page
	// counts down from Wait, which no clock skew between it and the server
	// can bend.
	Retry *time.Time `json:"retry,omitempty"`
	Wait  int        `json:"wait,omitempty"`
}

// agentReason is err, a failed card request, in a few words a person can
// act on (client.Unreachable); the page shows them and folds the whole
// error away.
func agentReason(err error) string {
	if why, ok := client.Unreachable(err); ok {
		return why
	}
	return "its agent card cannot be read"
}

// shownURL is raw without user info, query or fragment (any may carry a
// credential), for the page.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// lazyAgent is the agent of `a2a-tail web`, resolved in the background: the
// server starts before its agent (in a compose file it usually does) and
// serves its page while the card is requested again with backoff. Until the
// card is read, what needs the agent fails at once with errAgentDown and the
// state; after it, the client serves as usual.
type lazyAgent struct {
	ready chan struct{} // closed once c is set
	tried chan struct{} // closed once the first attempt ended
	stop  context.CancelFunc
	done  chan struct{}

	mu    sync.Mutex
	c     *client.Client
	state agentState
}

// errAgentDown is the error of a request that needs the agent before its
// card could be read.
var errAgentDown = errors.New("a2a-tail: the agent is not reachable yet")

// resolveAgent starts resolving the card at url with opts until it
// succeeds or ctx ends; lo and hi bound the backoff.
func resolveAgent(ctx context.Context, url string, opts []client.Option, lo, hi time.Duration) *lazyAgent {
	ctx, cancel := context.WithCancel(ctx)
	l := &lazyAgent{ready: make(chan struct{}), tried: make(chan struct{}), stop: cancel, done: make(chan struct{}),
		state: agentState{State: "connecting", URL: shownURL(url)}}
	go func() {
		defer close(l.done)
		wait := lo
		for i := 0; ; i++ {
			c, err := client.New(ctx, url, opts...)
			l.mu.Lock()
			l.state.Attempts++
			if err == nil {
				l.c = c
				l.state.State, l.state.Error, l.state.Retry, l.state.Reason = "up", "", nil, ""
				l.mu.Unlock()
				if i == 0 {
					close(l.tried)
				}
				close(l.ready)
				return
			}
			next := time.Now().Add(wait)
			l.state.State, l.state.Error, l.state.Retry = "unreachable", err.Error(), &next
			l.state.Reason = agentReason(err)
			l.mu.Unlock()
			if i == 0 {
				close(l.tried)
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, hi)
		}
	}()
	return l
}

// readyAgent is a lazyAgent of a client already made (the demo's).
func readyAgent(c *client.Client) *lazyAgent {
	l := &lazyAgent{ready: make(chan struct{}), tried: make(chan struct{}), stop: func() {}, done: make(chan struct{}), c: c,
		state: agentState{State: "up", Attempts: 1}}
	close(l.ready)
	close(l.tried)
	close(l.done)
	return l
}

// Close stops resolving and closes the client, if any.
func (l *lazyAgent) Close() error {
	l.stop()
	<-l.done
	if c := l.client(); c != nil {
		return c.Close()
	}
	return nil
}

// State returns the agent's state now.
func (l *lazyAgent) State() agentState {
	l.mu.Lock()
	st := l.state
	l.mu.Unlock()
	if st.Retry != nil {
		st.Wait = max(1, int(math.Ceil(time.Until(*st.Retry).Seconds())))
	}
	return st
}

func (l *lazyAgent) client() *client.Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

// get returns the client, or errAgentDown with the state.
func (l *lazyAgent) get() (*client.Client, error) {
	if c := l.client(); c != nil {
		return c, nil
	}
	st := l.State()
	if st.Error != "" {
		return nil, fmt.Errorf("%w (%s after %d attempts: %s)", errAgentDown, st.State, st.Attempts, st.Error)
	}
	return nil, fmt.Errorf("%w (%s)", errAgentDown, st.State)
}

// Follow is the relay's Follower.
func (l *lazyAgent) Follow(ctx context.Context, id a2a.TaskID) (*client.Stream, error) {
	c, err := l.get()
	if err != nil {
		return nil, err
	}
	return c.Follow(ctx, id)
}

// Send is the front-end endpoints' frontend.Agent.
func (l *lazyAgent) Send(ctx context.Context, msg *a2a.Message) (*client.Stream, error) {
	c, err := l.get()
	if err != nil {
		return nil, err
	}
	return c.Send(ctx, msg)
}

// ListTasks is the front-end endpoints' frontend.Agent: the web server
// sends no request that uses it before the agent is up (see
// webServer.needAgent).
func (l *lazyAgent) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	c, err := l.get()
	if err != nil {
		return nil, err
	}
	return c.ListTasks(ctx, req)
}

// Dispatch sends msg and returns at once with its task.
func (l *lazyAgent) Dispatch(ctx context.Context, msg *a2a.Message) (a2a.TaskID, error) {
	c, err := l.get()
	if err != nil {
		return "", err
	}
	return c.Dispatch(ctx, msg)
}
