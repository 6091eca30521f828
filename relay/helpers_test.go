package relay_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/schema"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(90*time.Second))
	t.Cleanup(cancel)
	return ctx
}

// startAgent starts the reference callee for one test.
func startAgent(t *testing.T) *agenttest.Agent {
	t.Helper()
	s, err := agenttest.New(agenttest.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("agenttest.Start: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newClient connects to s over JSON-RPC 1.0.
func newClient(t *testing.T, s *agenttest.Agent) *client.Client {
	t.Helper()
	c, err := client.New(testCtx(t), s.CardURL(agenttest.V1), client.WithRetry(8, time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// countingFollower counts the upstream Follows the relay starts.
type countingFollower struct {
	c *client.Client
	n atomic.Int64
}

func (f *countingFollower) Follow(ctx context.Context, id a2a.TaskID) (*client.Stream, error) {
	f.n.Add(1)
	return f.c.Follow(ctx, id)
}

// relayServer serves h on a real socket, mounted under /relay.
func relayServer(t *testing.T, h *relay.Handler) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/relay/", http.StripPrefix("/relay", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = h.Close() // ends the streams, so that srv.Close does not wait on them
		srv.Close()
	})
	return srv
}

// dispatch starts a turn of script name and returns its task id.
func dispatch(t *testing.T, c *client.Client, name string) string {
	t.Helper()
	id, err := c.Dispatch(testCtx(t), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(name)))
	if err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return string(id)
}

// event is one received SSE event.
type event struct {
	ID string
	Op schema.Op
}

// conn is one open event stream.
type conn struct {
	resp *http.Response
	r    *ssewire.Reader
}

func eventsURL(base, task string, q url.Values) string {
	u := base + "/relay/tasks/" + task + "/events"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// open opens an event stream; lastID is sent as Last-Event-ID when set.
func open(ctx context.Context, u, lastID string) (*conn, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("content type %q", ct)
	}
	return &conn{resp: resp, r: ssewire.NewStrictReader(bufio.NewReader(resp.Body), ssewire.DefaultMaxEventBytes)}, nil
}

// next reads the next op event; io.EOF when the response ended.
func (c *conn) next() (event, error) {
	for {
		ev, err := c.r.NextEvent()
		if err != nil {
			return event{}, err
		}
		if !ev.HasData {
			continue // retry:
		}
		var op schema.Op
		if err := json.Unmarshal(ev.Data, &op); err != nil {
			return event{}, fmt.Errorf("op %q: %w", ev.Data, err)
		}
		return event{ID: ev.ID, Op: op}, nil
	}
}

func (c *conn) close() { c.resp.Body.Close() }

// rest reads the op events up to the end of the response; the error is nil
// when it ended cleanly (io.EOF), else the first read error, with the events
// read before it.
func (c *conn) rest() ([]event, error) {
	var out []event
	for {
		ev, err := c.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// readAll reads a stream to its end.
func readAll(ctx context.Context, u, lastID string) ([]event, error) {
	c, err := open(ctx, u, lastID)
	if err != nil {
		return nil, err
	}
	defer c.close()
	return c.rest()
}

func ops(evs []event) []schema.Op {
	out := make([]schema.Op, len(evs))
	for i, e := range evs {
		out[i] = e.Op
	}
	return out
}

// lastID is the cursor a reader keeps: the id of the last event that had one.
func lastID(prev string, evs []event) string {
	for _, e := range evs {
		if e.ID != "" {
			prev = e.ID
		}
	}
	return prev
}

// viewOf applies ops to a fresh receiver.
func viewOf(task string, ops []schema.Op) schema.View {
	r := merge.NewReceiver(task, merge.Caps{})
	for _, op := range ops {
		r.Apply(op)
	}
	return r.View()
}

// blockIDs lists the identities of the block ops, for "each block once".
func blockIDs(ops []schema.Op) map[string]int {
	m := map[string]int{}
	for _, op := range ops {
		if op.Type == schema.OpBlock {
			m[fmt.Sprintf("%s/%s/%d/%s", op.Turn, op.Block.Key.StreamKey, op.Block.Key.Seq, op.Block.Key.ID)]++
		}
	}
	return m
}
