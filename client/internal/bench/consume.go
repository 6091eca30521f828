package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/merge"
)

// Target is one transport of a FrameServer at URL (its base, without
// /jsonrpc or /rest).
type Target struct {
	URL       string
	Transport a2a.TransportProtocol
}

// Targets are the transports a FrameServer serves.
func Targets(url string) []Target {
	return []Target{{url, a2a.TransportProtocolJSONRPC}, {url, a2a.TransportProtocolHTTPJSON}}
}

// Name is the short name of the transport: "jsonrpc" or "rest".
func (t Target) Name() string {
	if t.Transport == a2a.TransportProtocolHTTPJSON {
		return "rest"
	}
	return "jsonrpc"
}

func (t Target) endpoint() string {
	if t.Transport == a2a.TransportProtocolHTTPJSON {
		return t.URL + "/rest"
	}
	return t.URL + "/jsonrpc"
}

// NewRaw builds a plain a2a-go client on t, over hc (nil: a client with
// no whole-request timeout on http.DefaultTransport).
func NewRaw(ctx context.Context, t Target, hc *http.Client) (*a2aclient.Client, error) {
	if hc == nil {
		hc = &http.Client{}
	}
	opt := a2aclient.WithJSONRPCTransport(hc)
	if t.Transport == a2a.TransportProtocolHTTPJSON {
		opt = a2aclient.WithRESTTransport(hc)
	}
	iface := &a2a.AgentInterface{URL: t.endpoint(), ProtocolBinding: t.Transport, ProtocolVersion: a2a.Version}
	ac, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface}, opt)
	if err != nil {
		return nil, fmt.Errorf("bench: a2a-go client on %s: %w", t.Name(), err)
	}
	return ac, nil
}

// NewSDK builds a client of package client on t, over hc (nil: as in
// NewRaw), with opts.
func NewSDK(ctx context.Context, t Target, hc *http.Client, opts ...client.Option) (*client.Client, error) {
	if hc == nil {
		hc = &http.Client{}
	}
	opts = append([]client.Option{client.WithTransport(t.Transport), client.WithHTTPClient(hc)}, opts...)
	c, err := client.New(ctx, t.endpoint(), opts...)
	if err != nil {
		return nil, fmt.Errorf("bench: client on %s: %w", t.Name(), err)
	}
	return c, nil
}

// Reader reads the streams of a FrameServer one of the ways a measurement
// compares: "raw", plain a2a-go (RawSend, RawFollow), or "sdk", the
// client pipeline (SDKSend, SDKFollow).
// Like its client, it may read many streams at once.
type Reader struct {
	raw   *a2aclient.Client // set for "raw"
	sdk   *client.Client    // set for "sdk"
	floor *Target           // set for "floor" and "floor-valid": FloorSend, sends only
	valid bool              // "floor-valid"
}

// Impls are the reader impls, in the order of Order(0).
var Impls = []string{"raw", "sdk"}

// NewReader builds the reader impl ("raw", "sdk", or "floor" and
// "floor-valid", which are not in Impls: FloorSend, for Send only) on t, over hc
// (nil: as in NewRaw); opts apply to the SDK's client only. Close releases
// it.
func NewReader(ctx context.Context, t Target, impl string, hc *http.Client, opts ...client.Option) (*Reader, error) {
	var (
		r   Reader
		err error
	)
	switch impl {
	case "raw":
		r.raw, err = NewRaw(ctx, t, hc)
	case "sdk":
		r.sdk, err = NewSDK(ctx, t, hc, opts...)
	case "floor", "floor-valid":
		r.floor, r.valid = &t, impl == "floor-valid"
	default:
		err = fmt.Errorf("bench: unknown impl %q (raw, sdk, floor, floor-valid)", impl)
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// Send streams text: RawSend or SDKSend.
func (r *Reader) Send(ctx context.Context, text string, on OnProgress) (Result, error) {
	if r.floor != nil {
		return FloorSend(ctx, nil, *r.floor, text, r.valid)
	}
	if r.raw != nil {
		return RawSend(ctx, r.raw, text, on)
	}
	return SDKSend(ctx, r.sdk, text, on)
}

// Follow subscribes to task: RawFollow or SDKFollow.
func (r *Reader) Follow(ctx context.Context, task a2a.TaskID, on OnProgress) (Result, error) {
	if r.floor != nil {
		return Result{}, fmt.Errorf("bench: the floor reader only sends")
	}
	if r.raw != nil {
		return RawFollow(ctx, r.raw, task, on)
	}
	return SDKFollow(ctx, r.sdk, task, on)
}

// Close releases the reader's client.
func (r *Reader) Close() error {
	if r.floor != nil {
		return nil
	}
	if r.raw != nil {
		return r.raw.Destroy()
	}
	return r.sdk.Close()
}

// Order is the order in which repetition rep runs the readers: Impls
// rotated by rep, so that none always runs first or last, on a colder or
// warmer process and host.
func Order(rep int) []string {
	k := rep % len(Impls)
	return append(append([]string(nil), Impls[k:]...), Impls[:k]...)
}

// Result is what one stream delivered.
type Result struct {
	// Events is the number of events read (a2a-go events, or the events
	// behind the Updates: N working updates, the first Task and the final
	// state).
	Events int
	// Progress counts the working updates seen (raw) or the UpdateProgress
	// updates (SDK).
	Progress int
	// Applied counts the blocks the merge applied (SDK only).
	Applied int
	// Sink is the sum of the text lengths touched, so that the work is not
	// optimised away.
	Sink    int
	Elapsed time.Duration
	// State is the last state seen.
	State a2a.TaskState
}

// PerSecond is events per second.
func (r Result) PerSecond() float64 { return float64(r.Events) / r.Elapsed.Seconds() }

// OnProgress is called for every working update as it is delivered, with
// its number from 1 (the seq, on a FrameServer's streams). It may be nil.
type OnProgress func(i int64)

// RawSend streams text with plain a2a-go iteration, touching the text of
// every part of every status message: the floor the SDK is measured
// against.
func RawSend(ctx context.Context, ac *a2aclient.Client, text string, on OnProgress) (Result, error) {
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
	return raw(ac.SendStreamingMessage(ctx, req), on)
}

// RawFollow subscribes to task with plain a2a-go iteration; see RawSend.
func RawFollow(ctx context.Context, ac *a2aclient.Client, task a2a.TaskID, on OnProgress) (Result, error) {
	return raw(ac.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task}), on)
}

func raw(events func(func(a2a.Event, error) bool), on OnProgress) (Result, error) {
	var r Result
	start := time.Now()
	for ev, err := range events {
		if err != nil {
			return r, fmt.Errorf("bench: raw stream after %d events: %w", r.Events, err)
		}
		r.Events++
		var st *a2a.TaskStatus
		switch e := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			st = &e.Status
		case *a2a.Task:
			st = &e.Status
		}
		if st == nil {
			continue
		}
		r.State = st.State
		if m := st.Message; m != nil {
			for _, p := range m.Parts {
				r.Sink += len(p.Text())
			}
			if st.State == a2a.TaskStateWorking {
				r.Progress++
				if on != nil {
					on(int64(r.Progress))
				}
			}
		}
	}
	r.Elapsed = time.Since(start)
	if !r.State.Terminal() {
		return r, fmt.Errorf("bench: raw stream ended in state %q after %d events", r.State, r.Events)
	}
	return r, nil
}

// SDKSend streams text through the whole client pipeline — envelope read,
// merge, ops, verdict — and takes the outcome at the end.
func SDKSend(ctx context.Context, c *client.Client, text string, on OnProgress) (Result, error) {
	s, err := c.SendText(ctx, text)
	if err != nil {
		return Result{}, err
	}
	return sdk(s, on)
}

// SDKFollow follows task through the whole client pipeline; see SDKSend.
func SDKFollow(ctx context.Context, c *client.Client, task a2a.TaskID, on OnProgress) (Result, error) {
	s, err := c.Follow(ctx, task)
	if err != nil {
		return Result{}, err
	}
	return sdk(s, on)
}

func sdk(s *client.Stream, on OnProgress) (Result, error) {
	var r Result
	start := time.Now()
	for u, err := range s.Updates() {
		if err != nil {
			return r, fmt.Errorf("bench: client stream after %d updates: %w", r.Progress, err)
		}
		r.State = u.State
		switch u.Type {
		case client.UpdateProgress:
			r.Events++
			r.Progress++
			if u.Change.Effect == merge.Applied {
				r.Applied++
				r.Sink += len(u.Change.Op.Block.Kind)
			}
			if on != nil {
				on(u.Reading.Envelope.Seq)
			}
		case client.UpdateSnapshot:
			r.Events++
		case client.UpdateState:
			// The settling state is an event; a state change on a working
			// update is not one more.
			if u.State.Terminal() || u.State == a2a.TaskStateInputRequired {
				r.Events++
			}
		case client.UpdateResult:
			// The verdict of the settling event, not an event of its own.
		default:
			r.Events++
		}
	}
	r.Elapsed = time.Since(start)
	if _, err := s.Outcome(); err != nil {
		return r, fmt.Errorf("bench: client outcome: %w", err)
	}
	return r, nil
}
