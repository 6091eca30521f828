package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ErrAgentDown is matched (errors.Is) by the error of a [Lazy]'s call made
// before the agent's card could be read.
var ErrAgentDown = errors.New("client: the agent is not reachable yet")

// AgentState is what a [Lazy] knows of its agent, in a form a page can show
// (it marshals to JSON as is).
type AgentState struct {
	// State is "connecting" (no card yet, first attempt running),
	// "unreachable" (the last attempt failed; the next is at Retry) or "up".
	State string `json:"state"`
	// URL is the card URL as given, without user info, query or fragment
	// (any may carry a credential).
	URL string `json:"url,omitempty"`
	// Reason says in a few words why the last attempt failed (state
	// "unreachable"; see [Unreachable]); Error is the whole error.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Attempts counts the card requests made.
	Attempts int `json:"attempts"`
	// Retry is when the next attempt starts (state "unreachable"), and Wait
	// the whole seconds until then when the state was read: a page counts
	// down from Wait, which no clock skew between it and the server bends.
	Retry *time.Time `json:"retry,omitempty"`
	Wait  int        `json:"wait,omitempty"`
}

// A Lazy is a client of an agent that need not be up yet: a server that
// calls agents starts before them (in a compose file it usually does).
// [NewLazy] returns at once and reads the agent card in the background,
// again and again with backoff until it succeeds or the context ends;
// meanwhile every call fails at once with [ErrAgentDown] and the state, and
// [Lazy.State] says what is going on. Once the card is read, calls go to the
// [Client]. It is safe for concurrent use.
type Lazy struct {
	ready chan struct{} // closed once c is set
	tried chan struct{} // closed once the first attempt ended
	stop  context.CancelFunc
	done  chan struct{}

	mu    sync.Mutex
	c     *Client
	state AgentState
}

// NewLazy starts reading the card at cardURL (as [New] does, with opts)
// until it succeeds or ctx ends. The first retry waits maxWait/20, each next
// one twice as long, up to maxWait, each with the jitter of the client's
// resubscribes (half to all of it): the longest a caller waits after the
// agent came up (a card request every few seconds is nothing to an agent
// that is down). maxWait < 1 ms is 5 s.
func NewLazy(ctx context.Context, cardURL string, maxWait time.Duration, opts ...Option) *Lazy {
	if maxWait < time.Millisecond {
		maxWait = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &Lazy{ready: make(chan struct{}), tried: make(chan struct{}), stop: cancel, done: make(chan struct{}),
		state: AgentState{State: "connecting", URL: shownURL(cardURL)}}
	go func() {
		defer close(l.done)
		for i := 0; ; i++ {
			c, err := New(ctx, cardURL, opts...)
			l.mu.Lock()
			l.state.Attempts++
			if err == nil {
				l.c = c
				l.state = AgentState{State: "up", URL: l.state.URL, Attempts: l.state.Attempts}
				l.mu.Unlock()
				if i == 0 {
					close(l.tried)
				}
				close(l.ready)
				return
			}
			wait := backoff(i+1, maxWait/20, maxWait)
			next := time.Now().Add(wait)
			l.state.State, l.state.Error, l.state.Retry = "unreachable", err.Error(), &next
			l.state.Reason = "its agent card cannot be read"
			if why, ok := Unreachable(err); ok {
				l.state.Reason = why
			}
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
		}
	}()
	return l
}

// LazyOf is a Lazy of a client already made: up from the start.
func LazyOf(c *Client) *Lazy {
	l := &Lazy{ready: make(chan struct{}), tried: make(chan struct{}), stop: func() {}, done: make(chan struct{}), c: c,
		state: AgentState{State: "up", Attempts: 1}}
	close(l.ready)
	close(l.tried)
	close(l.done)
	return l
}

// Close stops reading the card and closes the client, if any.
func (l *Lazy) Close() error {
	l.stop()
	<-l.done
	if c := l.current(); c != nil {
		return c.Close()
	}
	return nil
}

// Ready is closed once the card is read; Tried once the first attempt
// ended, either way.
func (l *Lazy) Ready() <-chan struct{} { return l.ready }

// Tried is closed once the first attempt to read the card ended.
func (l *Lazy) Tried() <-chan struct{} { return l.tried }

// State returns the agent's state now.
func (l *Lazy) State() AgentState {
	l.mu.Lock()
	st := l.state
	l.mu.Unlock()
	if st.Retry != nil {
		st.Wait = max(1, int(math.Ceil(time.Until(*st.Retry).Seconds())))
	}
	return st
}

func (l *Lazy) current() *Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

// Client returns the client once the card is read, else an error matching
// ErrAgentDown that says the state.
func (l *Lazy) Client() (*Client, error) {
	if c := l.current(); c != nil {
		return c, nil
	}
	st := l.State()
	if st.Error != "" {
		return nil, fmt.Errorf("%w (%s after %d attempts: %s)", ErrAgentDown, st.State, st.Attempts, st.Error)
	}
	return nil, fmt.Errorf("%w (%s)", ErrAgentDown, st.State)
}

// Send is [Client.Send] once the agent is up.
func (l *Lazy) Send(ctx context.Context, msg *a2a.Message) (*Stream, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.Send(ctx, msg)
}

// Follow is [Client.Follow] once the agent is up.
func (l *Lazy) Follow(ctx context.Context, id a2a.TaskID) (*Stream, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.Follow(ctx, id)
}

// ListTasks is [Client.ListTasks] once the agent is up.
func (l *Lazy) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.ListTasks(ctx, req)
}

// Dispatch is [Client.Dispatch] once the agent is up.
func (l *Lazy) Dispatch(ctx context.Context, msg *a2a.Message) (a2a.TaskID, error) {
	c, err := l.Client()
	if err != nil {
		return "", err
	}
	return c.Dispatch(ctx, msg)
}

// shownURL is raw without user info, query or fragment (any may carry a
// credential), for a page or a log.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// SendText is [Client.SendText] once the agent is up.
func (l *Lazy) SendText(ctx context.Context, text string) (*Stream, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.SendText(ctx, text)
}
