package agenttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// The holes of a frame template: markers rendered into the frames, then
// cut out. seqMarker+j stands for the seq of pattern step j (it also makes
// the message id); taskMarker for the task id.
const (
	seqMarker  = 7_000_000_000_000_000
	taskMarker = "TASKMARKER"
	contextID  = "ctx-bench"
)

// hole says what fills the gap after a piece of a template.
type hole uint8

const (
	holeNone hole = iota
	holeSeq
	holeTask
)

type piece struct {
	lit  []byte
	fill hole
}

// template is one pre-rendered SSE frame with its holes.
type template []piece

// cut splits frame at every occurrence of the markers of seq and task.
func cut(frame []byte, seq int64) template {
	seqText := []byte(strconv.FormatInt(seq, 10))
	var t template
	for len(frame) > 0 {
		i, h, n := -1, holeNone, 0
		if seq != 0 {
			if j := bytes.Index(frame, seqText); j >= 0 {
				i, h, n = j, holeSeq, len(seqText)
			}
		}
		if j := bytes.Index(frame, []byte(taskMarker)); j >= 0 && (i < 0 || j < i) {
			i, h, n = j, holeTask, len(taskMarker)
		}
		if i < 0 {
			t = append(t, piece{lit: frame})
			break
		}
		t = append(t, piece{lit: frame[:i], fill: h})
		frame = frame[i+n:]
	}
	return t
}

// appendTo renders the frame with its holes filled.
func (t template) appendTo(dst []byte, seq int64, task string) []byte {
	for _, p := range t {
		dst = append(dst, p.lit...)
		switch p.fill {
		case holeSeq:
			dst = strconv.AppendInt(dst, seq, 10)
		case holeTask:
			dst = append(dst, task...)
		}
	}
	return dst
}

// The wires a FrameServer speaks, how frames are enveloped: JSON-RPC
// results or bare REST StreamResponses (A2A 1.0).
const (
	frameJSONRPC = iota
	frameREST
)

func render(w int, ev a2a.Event) []byte {
	b, err := json.Marshal(a2a.StreamResponse{Event: ev})
	if err != nil {
		panic(fmt.Sprintf("agenttest: render %T: %v", ev, err))
	}
	if w == frameJSONRPC {
		// a2a-go's client does not match the response id to the request's.
		return []byte(fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":%s}\n\n", b))
	}
	return []byte(fmt.Sprintf("data: %s\n\n", b))
}

// frames are the templates of one wire.
type frames struct {
	submitted, snapshot template // first frame of a send, of a subscription
	working             []template
	completed           template
}

func renderFrames(w int, steps []Step) frames {
	info := a2a.TaskInfo{TaskID: taskMarker, ContextID: contextID}
	user := &a2a.Message{ID: "u-1", Role: a2a.MessageRoleUser, TaskID: taskMarker, ContextID: contextID,
		Parts: a2a.ContentParts{a2a.NewTextPart("go")}}
	task := func(state a2a.TaskState) *a2a.Task {
		return &a2a.Task{ID: taskMarker, ContextID: contextID, Status: a2a.TaskStatus{State: state}, History: []*a2a.Message{user}}
	}
	f := frames{
		submitted: cut(render(w, task(a2a.TaskStateSubmitted)), 0),
		snapshot:  cut(render(w, task(a2a.TaskStateWorking)), 0),
	}
	for j, st := range steps {
		if st.Envelope == nil {
			panic("agenttest: the pattern has a step without an envelope")
		}
		e := *st.Envelope
		e.Seq = seqMarker + int64(j)
		ev, err := envelope.NewStatusUpdate(info, e, st.Text)
		if err != nil {
			panic(fmt.Sprintf("agenttest: step %d: %v", j, err))
		}
		ev.Status.Message.ID = "m-" + strconv.FormatInt(e.Seq, 10)
		f.working = append(f.working, cut(render(w, ev), e.Seq))
	}
	done := a2a.NewStatusUpdateEvent(info, a2a.TaskStateCompleted,
		&a2a.Message{ID: "m-final", Role: a2a.MessageRoleAgent, TaskID: taskMarker, ContextID: contextID,
			Parts: a2a.ContentParts{a2a.NewTextPart("done")}})
	f.completed = cut(render(w, done), 0)
	return f
}

// FrameServer is an A2A 1.0 peer for benchmarks of a caller, that only
// streams, from templates: on JSON-RPC at /jsonrpc and on REST under /rest.
// Served by a2asrv, a long stream measures the server (its task store
// copies a growing history per event); a FrameServer writes a Trajectory's
// frames, rendered once, at a few appends per frame. It is an http.Handler,
// safe for concurrent use.
//
// A send (SendStreamingMessage, POST /rest/message:stream) whose text is a
// query string — "n=100000", "n=2000&pace=1ms" — streams the submitted
// Task, n working updates, and completed. Update i (from 1) carries seq i
// and pattern step (i-1) mod the pattern length, so the stream keys repeat
// from one tile to the next; pace > 0 flushes every frame and sleeps
// between frames, otherwise frames go out in 64 KiB writes.
//
// A subscription (SubscribeToTask, POST /rest/tasks/{id}:subscribe) streams
// the Task snapshot (working) and FollowUpdates working updates of the
// task it names, then holds, with a keep-alive every 15 s, until
// [FrameServer.Release]; then completed.
type FrameServer struct {
	// FollowUpdates is the number of working updates a subscription gets
	// before it holds.
	FollowUpdates int

	wires [2]frames

	mu   sync.Mutex
	gate chan struct{}
}

// NewFrameServer renders the frames of Trajectory(pattern) (10 000 steps
// when pattern ≤ 0).
func NewFrameServer(pattern int) *FrameServer {
	if pattern <= 0 {
		pattern = 10_000
	}
	steps := Trajectory(pattern).Steps
	s := &FrameServer{FollowUpdates: 10, gate: make(chan struct{})}
	s.wires[frameJSONRPC] = renderFrames(frameJSONRPC, steps)
	s.wires[frameREST] = renderFrames(frameREST, steps)
	return s
}

// Release ends the subscriptions held so far: each gets its completed
// frame. Later subscriptions hold until the next Release.
func (s *FrameServer) Release() {
	s.mu.Lock()
	close(s.gate)
	s.gate = make(chan struct{})
	s.mu.Unlock()
}

func (s *FrameServer) held() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate
}

// request is what the server reads of a call, on either wire.
type request struct {
	Method string `json:"method"`
	Params struct {
		ID      string `json:"id"`
		Message struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"params"`
}

// ServeHTTP implements http.Handler.
func (s *FrameServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "agenttest: POST a streaming call", http.StatusBadRequest)
		return
	}
	var req request
	wire := frameJSONRPC
	switch p := r.URL.Path; {
	case p == "/jsonrpc":
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	case p == "/rest/message:stream":
		wire, req.Method = frameREST, "SendStreamingMessage"
		if err := json.Unmarshal(body, &req.Params); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	case strings.HasPrefix(p, "/rest/tasks/") && strings.HasSuffix(p, ":subscribe"):
		wire, req.Method = frameREST, "SubscribeToTask"
		req.Params.ID = strings.TrimSuffix(strings.TrimPrefix(p, "/rest/tasks/"), ":subscribe")
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	switch req.Method {
	case "SendStreamingMessage":
		text := ""
		if ps := req.Params.Message.Parts; len(ps) > 0 {
			text = ps[0].Text
		}
		n, pace, err := parseSend(text)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.send(w, s.wires[wire], n, pace)
	case "SubscribeToTask":
		s.subscribe(w, r, s.wires[wire], req.Params.ID)
	default:
		http.Error(w, "agenttest: unknown method "+req.Method, http.StatusBadRequest)
	}
}

// FrameRequest is the message text that asks a FrameServer for n updates,
// paced by pace (0: as fast as possible).
func FrameRequest(n int, pace time.Duration) string {
	v := url.Values{"n": {strconv.Itoa(n)}}
	if pace > 0 {
		v.Set("pace", pace.String())
	}
	return v.Encode()
}

func parseSend(text string) (n int, pace time.Duration, err error) {
	v, err := url.ParseQuery(text)
	if err != nil {
		return 0, 0, fmt.Errorf("agenttest: send text %q: %w", text, err)
	}
	if n, err = strconv.Atoi(v.Get("n")); err != nil || n < 0 {
		return 0, 0, fmt.Errorf("agenttest: send text %q: n must be a count", text)
	}
	if p := v.Get("pace"); p != "" {
		if pace, err = time.ParseDuration(p); err != nil {
			return 0, 0, fmt.Errorf("agenttest: send text %q: %w", text, err)
		}
	}
	return n, pace, nil
}

const sendTask = "task-send"

func (s *FrameServer) send(w http.ResponseWriter, f frames, n int, pace time.Duration) {
	fl, _ := w.(http.Flusher)
	bw := bufio.NewWriterSize(w, 64<<10)
	buf := make([]byte, 0, 4096)
	write := func(t template, seq int64) bool {
		buf = t.appendTo(buf[:0], seq, sendTask)
		if _, err := bw.Write(buf); err != nil {
			return false
		}
		if pace > 0 {
			if bw.Flush() != nil {
				return false
			}
			fl.Flush()
		}
		return true
	}
	if !write(f.submitted, 0) {
		return
	}
	for i := range n {
		if pace > 0 {
			time.Sleep(pace)
		}
		if !write(f.working[i%len(f.working)], int64(i+1)) {
			return
		}
	}
	if write(f.completed, 0) && bw.Flush() == nil && fl != nil {
		fl.Flush()
	}
}

func (s *FrameServer) subscribe(w http.ResponseWriter, r *http.Request, f frames, task string) {
	fl, _ := w.(http.Flusher)
	gate := s.held()
	var buf []byte
	buf = f.snapshot.appendTo(buf, 0, task)
	for i := range s.FollowUpdates {
		buf = f.working[i%len(f.working)].appendTo(buf, int64(i+1), task)
	}
	if _, err := w.Write(buf); err != nil {
		return
	}
	fl.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-gate:
			_, _ = w.Write(f.completed.appendTo(buf[:0], 0, task))
			fl.Flush()
			return
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-r.Context().Done():
			return
		}
	}
}
