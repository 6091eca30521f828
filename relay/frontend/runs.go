package frontend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tfrs/a2a-progress/relay/internal/sse"
)

// Runs that outlive the browser (PROTOCOL.md §9.4). An orchestrator's run —
// an AG-UI run, a useChat turn — belongs to the orchestrator, not to the
// HTTP request that started it: the remote calls it makes run on the run's
// context, which a lost connection does not cancel; only an explicit abort
// by its user (Runs.Abort), its end, or the orchestrator's own context do.
// Its stream is kept while it runs and for a bounded time after it ended, so
// that a browser that comes back — after a cut, after a reload — gets what it
// lacks: an AG-UI run's events since its cursor (AGUILog), a useChat turn's
// message (ChatStream).

// The errors of Runs. ErrRunAborted and ErrRunEnded are the causes
// (context.Cause) of a run's context once it is cancelled.
var (
	ErrRunAborted  = errors.New("frontend: the run was aborted by its user")
	ErrRunEnded    = errors.New("frontend: the run ended")
	ErrTooManyRuns = errors.New("frontend: too many runs are running")
	ErrRunExists   = errors.New("frontend: a run of that key is running")
)

// RunStream is what a run streams to its readers: *AGUILog or *ChatStream.
type RunStream interface {
	// Serve streams the run to one reader (the request that started it, or
	// one that comes back).
	Serve(w http.ResponseWriter, r *http.Request)
	// Close ends the stream: readers get its end.
	Close()
}

// RunLimits bound a Runs. Zero fields take the defaults.
type RunLimits struct {
	// Max is how many runs are kept, running or ended (default 64): past
	// it the oldest ended run gives way, and a new run is refused
	// (ErrTooManyRuns) when all of them still run.
	Max int
	// Keep is how long an ended run is kept for its readers to come back
	// (default 10 minutes).
	Keep time.Duration
}

// Runs keeps an orchestrator's runs of one kind by key (the orchestrator's
// choice: an AG-UI thread and run id, a useChat chat id), each with its
// context and its stream. It is safe for concurrent use.
//
// A key is the client's: whoever can name it can read and abort the run.
// Serve a run to its conversation's owner only.
type Runs[S RunStream] struct {
	ctx       context.Context
	limits    RunLimits
	newStream func() S
	epoch     string

	mu   sync.Mutex
	gen  uint64
	runs map[string]*Run[S]
	// now is time.Now; tests move it.
	now func() time.Time
}

// Run is one run of a Runs: its context, for the remote calls it makes,
// and its stream.
type Run[S RunStream] struct {
	// Stream is what the run writes and its readers read.
	Stream S
	ctx    context.Context
	cancel context.CancelCauseFunc
	// ended is zero while the run runs (guarded by the Runs' mu).
	ended time.Time
	rs    *Runs[S]
}

// NewRuns returns an empty registry whose runs' contexts are children of
// ctx (cancelling it ends them all), with a stream from newStream each.
func NewRuns[S RunStream](ctx context.Context, newStream func() S, limits RunLimits) *Runs[S] {
	if limits.Max <= 0 {
		limits.Max = 64
	}
	if limits.Keep <= 0 {
		limits.Keep = 10 * time.Minute
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Runs[S]{ctx: ctx, limits: limits, newStream: newStream, epoch: hex.EncodeToString(b[:]),
		runs: map[string]*Run[S]{}, now: time.Now}
}

// Start starts a run under key: ErrRunExists while a run of that key still
// runs (an ended one gives way), ErrTooManyRuns when Max runs still run.
func (rs *Runs[S]) Start(key string) (*Run[S], error) { return rs.start(key, false) }

// Replace starts a run under key in place of the one that runs under it,
// which is aborted (a useChat user who sends a new message has left the
// turn that ran).
func (rs *Runs[S]) Replace(key string) (*Run[S], error) { return rs.start(key, true) }

func (rs *Runs[S]) start(key string, replace bool) (*Run[S], error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.dropLocked(false)
	if old := rs.runs[key]; old != nil && old.ended.IsZero() {
		if !replace {
			return nil, ErrRunExists
		}
		old.cancel(ErrRunAborted)
		delete(rs.runs, key)
	}
	if _, ok := rs.runs[key]; !ok && len(rs.runs) >= rs.limits.Max {
		rs.dropLocked(true)
		if len(rs.runs) >= rs.limits.Max {
			return nil, ErrTooManyRuns
		}
	}
	rs.gen++
	r := &Run[S]{Stream: rs.newStream(), rs: rs}
	r.ctx, r.cancel = context.WithCancelCause(rs.ctx)
	if l, ok := any(r.Stream).(*AGUILog); ok {
		l.prefix = rs.epoch + "." + strconv.FormatUint(rs.gen, 10) + "."
	}
	rs.runs[key] = r
	return r, nil
}

// Get is the run kept under key, or nil.
func (rs *Runs[S]) Get(key string) *Run[S] {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.dropLocked(false)
	return rs.runs[key]
}

// Abort cancels the context of the run that runs under key (cause
// ErrRunAborted): its remote calls stop, and the orchestrator cancels their
// tasks. It reports whether a run was running.
func (rs *Runs[S]) Abort(key string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r := rs.runs[key]
	if r == nil || !r.ended.IsZero() {
		return false
	}
	r.cancel(ErrRunAborted)
	return true
}

// dropLocked forgets the ended runs kept longer than Keep and, with
// oldest, the oldest ended run too. The caller holds rs.mu.
func (rs *Runs[S]) dropLocked(oldest bool) {
	var first string
	now := rs.now()
	for key, r := range rs.runs {
		switch {
		case r.ended.IsZero():
		case now.Sub(r.ended) > rs.limits.Keep:
			delete(rs.runs, key)
		case first == "" || r.ended.Before(rs.runs[first].ended):
			first = key
		}
	}
	if oldest && first != "" {
		delete(rs.runs, first)
	}
}

// Context is the run's context: the remote calls' context. It is
// cancelled by Abort (cause ErrRunAborted), by End (ErrRunEnded) or with
// the Runs' context — never by a reader's request.
func (r *Run[S]) Context() context.Context { return r.ctx }

// Aborted reports whether the run's user aborted it.
func (r *Run[S]) Aborted() bool { return errors.Is(context.Cause(r.ctx), ErrRunAborted) }

// End ends the run once its last event is written: its stream is closed
// and kept for Keep, and its context is cancelled.
func (r *Run[S]) End() {
	r.rs.mu.Lock()
	r.ended = r.rs.now()
	r.rs.mu.Unlock()
	r.cancel(ErrRunEnded)
	r.Stream.Close()
}

// MaxAGUILogBytes bounds what an AGUILog keeps: past it the oldest events
// give way (a reader whose cursor falls before them cannot resume).
const MaxAGUILogBytes = 8 << 20

// aguiLogEventCost is what an event costs in an AGUILog beyond its JSON.
const aguiLogEventCost = 128

// AGUILog is an AG-UI run's events, kept and numbered so that a reader cut
// at any event can resume after it: its write method is what NewAGUIRun
// takes, and Serve streams the run to a reader — from the start, or after a
// cursor — then live until the run's last event.
//
// Each event goes out with an SSE id:, a cursor "<epoch>.<gen>.<n>" (the form
// of the relay's task streams, PROTOCOL.md §8.2: epoch random per Runs, gen
// the run's number in it, n the events up to and including this one). A
// reader resumes with Last-Event-ID (or ?after=). AG-UI's client checks
// every connection as a run of its own, so a resumed stream opens with the
// run's RUN_STARTED, a CUSTOM event "a2a.resume" {after, restated}, then the
// restated openers of what was open at the cursor — the sub-agents still
// active, a message or tool call cut between its start and its end — none
// of which carries an id:, and then exactly the events after the cursor. The
// client treats a repeated start of a message or tool call it holds as that
// same one, so nothing shows twice.
type AGUILog struct {
	mu sync.Mutex
	// prefix is "<epoch>.<gen>." of the cursors.
	prefix string
	events []logEvent
	// first is the number of events dropped at the front (the first kept
	// event is number first+1); base is what was open before it.
	first   uint64
	base    aguiOpen
	bytes   int
	changed chan struct{}
	closed  bool
}

// logEvent is one event of an AGUILog: its JSON, and what it opens or
// closes ("" when neither).
type logEvent struct {
	data   []byte
	opens  string
	closes string
}

// aguiOpen is what is open after some events: the openers in order.
type aguiOpen []logEvent

// NewAGUILog returns an empty log. A log of a Runs is made by it; one made
// here has cursors of its own.
func NewAGUILog() *AGUILog {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &AGUILog{prefix: hex.EncodeToString(b[:]) + ".1.", changed: make(chan struct{})}
}

// Write appends one event and wakes the readers. Pass it to NewAGUIRun.
func (l *AGUILog) Write(ev map[string]any) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	e := logEvent{data: data}
	e.opens, e.closes = aguiOpenKey(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("frontend: the run's log is closed")
	}
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	l.events = append(l.events, e)
	l.bytes += len(data) + aguiLogEventCost
	for l.bytes > MaxAGUILogBytes && len(l.events) > 1 {
		l.base = l.base.apply(l.events[0])
		l.bytes -= len(l.events[0].data) + aguiLogEventCost
		l.events[0] = logEvent{}
		l.events = l.events[1:]
		l.first++
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return nil
}

// Close ends the log: readers end after its last event.
func (l *AGUILog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		if l.changed != nil {
			close(l.changed)
		}
	}
}

// aguiOpenKey is what an event opens or closes: a key per kind and id.
func aguiOpenKey(ev map[string]any) (opens, closes string) {
	typ, _ := ev["type"].(string)
	id := func(field string) string { s, _ := ev[field].(string); return s }
	switch typ {
	case "RUN_STARTED":
		return "run", ""
	case "RUN_FINISHED", "RUN_ERROR":
		return "", "run"
	case "SUBAGENT_STARTED":
		return "sub:" + id("subagentRunId"), ""
	case "SUBAGENT_FINISHED", "SUBAGENT_ERROR":
		return "", "sub:" + id("subagentRunId")
	case "TEXT_MESSAGE_START":
		return "text:" + id("messageId"), ""
	case "TEXT_MESSAGE_END":
		return "", "text:" + id("messageId")
	case "TOOL_CALL_START":
		return "tool:" + id("toolCallId"), ""
	case "TOOL_CALL_END":
		return "", "tool:" + id("toolCallId")
	case "REASONING_START":
		return "reasoning:" + id("messageId"), ""
	case "REASONING_END":
		return "", "reasoning:" + id("messageId")
	case "REASONING_MESSAGE_START":
		return "rmsg:" + id("messageId"), ""
	case "REASONING_MESSAGE_END":
		return "", "rmsg:" + id("messageId")
	}
	return "", ""
}

// apply is what is open after e.
func (o aguiOpen) apply(e logEvent) aguiOpen {
	switch {
	case e.opens != "":
		return append(o, logEvent{data: e.data, opens: e.opens})
	case e.closes == "run":
		return o[:0]
	case e.closes != "":
		for i := len(o) - 1; i >= 0; i-- {
			if o[i].opens == e.closes {
				return append(o[:i:i], o[i+1:]...)
			}
		}
	}
	return o
}

// errNoResume is the reason a reader cannot be served.
type errNoResume string

func (e errNoResume) Error() string { return string(e) }

// position is where a reader with the cursor of r starts: the index of the
// first kept event to send, and the openers to restate first (nil from the
// start of the run).
func (l *AGUILog) position(r *http.Request) (next uint64, restate aguiOpen, resumed bool, err error) {
	cur := r.Header.Get("Last-Event-ID")
	if cur == "" {
		cur = r.URL.Query().Get("after")
	}
	if cur == "" {
		if l.first > 0 {
			return 0, nil, false, errNoResume("the start of the run is no longer kept")
		}
		return 0, nil, false, nil
	}
	rest, ok := strings.CutPrefix(cur, l.prefix)
	n, perr := strconv.ParseUint(rest, 10, 64)
	if !ok || perr != nil || len(cur) > 96 {
		return 0, nil, false, errNoResume("the cursor is not one of this run's")
	}
	if n < l.first || n > l.first+uint64(len(l.events)) {
		return 0, nil, false, errNoResume("the cursor is no longer kept")
	}
	open := append(aguiOpen(nil), l.base...)
	for _, e := range l.events[:n-l.first] {
		open = open.apply(e)
	}
	return n, open, true, nil
}

// Serve streams the run to one reader: without a cursor, every event from
// RUN_STARTED; with one (Last-Event-ID, else ?after=), the resumed stream
// the type documents; then live events until the run's last one or the
// request ends. A cursor it cannot resume from — malformed, another run's,
// fallen out of the bounded log — is 410 with a JSON reason, as is a run
// whose start is no longer kept; a reader that has every event of an ended
// run gets 204.
func (l *AGUILog) Serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	next, restate, resumed, err := l.position(r)
	done := l.closed && next == l.first+uint64(len(l.events))
	l.mu.Unlock()
	if err != nil {
		sse.WriteError(w, http.StatusGone, "frontend: cannot resume the run: "+err.Error())
		return
	}
	if resumed && done && len(restate) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ew := newEventWriter(w)
	if resumed {
		// RUN_STARTED first (it is open until the run's end); then what
		// says this is a resumed stream; then the other openers.
		var run []byte
		if len(restate) > 0 && restate[0].opens == "run" {
			run, restate = restate[0].data, restate[1:]
		}
		info, _ := json.Marshal(map[string]any{"type": "CUSTOM", "name": "a2a.resume",
			"value": map[string]any{"after": l.prefix + strconv.FormatUint(next, 10), "restated": len(restate)}})
		if run != nil {
			_ = ew.Event("", "", run)
		}
		_ = ew.Event("", "", info)
		for _, e := range restate {
			_ = ew.Event("", "", e.data)
		}
	}
	for {
		l.mu.Lock()
		if next < l.first {
			// The reader fell out of the bounded log: it ends, and its
			// reconnect is told why.
			l.mu.Unlock()
			return
		}
		batch := l.events[next-l.first:]
		closed, changed := l.closed, l.changed
		l.mu.Unlock()
		for _, e := range batch {
			next++
			_ = ew.Event(l.prefix+strconv.FormatUint(next, 10), "", e.data)
		}
		if ew.Flush() != nil || (closed && len(batch) == 0) {
			return
		}
		if closed {
			continue
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}
