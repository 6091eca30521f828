package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/schema"
)

// The bounds of a request: its body, the questions of one message; and the
// runs kept of each kind, AG-UI runs and chat turns (each keeps its stream
// for reconnects, at most frontend.MaxAGUILogBytes or
// frontend.MaxChatStreamBytes): running ones until they end, ended ones for
// keepEnded or until a new run needs the room, oldest first.
const (
	maxBodyBytes = 1 << 20
	maxQuestions = 4
	maxRuns      = 64
	keepEnded    = 10 * time.Minute
	// cancelTimeout bounds the CancelTask an aborted run sends each of its
	// remote tasks.
	cancelTimeout = 10 * time.Second
	// maxPending conversations keep their colleagues' open questions for
	// keepQuestion each.
	maxPending   = 1024
	keepQuestion = 30 * time.Minute
)

// colleague is the remote agent: *client.Client is one.
type colleague interface {
	SendText(ctx context.Context, text string) (*client.Stream, error)
	Respond(ctx context.Context, taskID a2a.TaskID, text string) (*client.Stream, error)
	Cancel(ctx context.Context, taskID a2a.TaskID) (*a2a.Task, error)
}

// lazyColleague is a colleague that starts before its agent: client.Lazy
// (every call fails at once with client.ErrAgentDown until the agent's card
// was read), with the calls Lazy does not have taken from its client.
type lazyColleague struct{ *client.Lazy }

func (l lazyColleague) Respond(ctx context.Context, taskID a2a.TaskID, text string) (*client.Stream, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.Respond(ctx, taskID, text)
}

func (l lazyColleague) Cancel(ctx context.Context, taskID a2a.TaskID) (*a2a.Task, error) {
	c, err := l.Client()
	if err != nil {
		return nil, err
	}
	return c.Cancel(ctx, taskID)
}

// orchestrator serves /ag-ui and /api/chat with a scripted caller. Its runs
// are its own, not their requests': a browser that goes away leaves them
// running, and one that comes back reconnects (frontend.Runs).
type orchestrator struct {
	ctx  context.Context
	c    colleague
	port string
	mux  *http.ServeMux
	wg   sync.WaitGroup
	// pace paces the preliminary outputs (zero: the defaults).
	pace frontend.ChatToolOptions
	// onUpdate, when set, sees every update of every remote call (main
	// logs the reconnects).
	onUpdate func(client.Update)
	// threads and chatQuestions keep the remote calls that wait for the
	// user's response, by AG-UI thread and by chat.
	threads, chatQuestions *frontend.PendingResponses
	// runs are the AG-UI runs by thread and run id (runKey), chats each
	// chat's latest turn by chat id.
	runs  *frontend.Runs[*frontend.AGUILog]
	chats *frontend.Runs[*frontend.ChatStream]
}

func newOrchestrator(ctx context.Context, c colleague, addr string) *orchestrator {
	_, port, _ := net.SplitHostPort(addr)
	limits := frontend.RunLimits{Max: maxRuns, Keep: keepEnded}
	o := &orchestrator{ctx: ctx, c: c, port: port, mux: http.NewServeMux(),
		threads: frontend.NewPendingResponses(maxPending, keepQuestion), chatQuestions: frontend.NewPendingResponses(maxPending, keepQuestion),
		runs:  frontend.NewRuns(ctx, frontend.NewAGUILog, limits),
		chats: frontend.NewRuns(ctx, frontend.NewChatStream, limits)}
	o.mux.HandleFunc("POST /ag-ui", o.agui)
	o.mux.HandleFunc("GET /ag-ui/threads/{thread}/runs/{run}/events", o.reconnect)
	o.mux.HandleFunc("POST /ag-ui/threads/{thread}/runs/{run}/events", o.reconnect)
	o.mux.HandleFunc("DELETE /ag-ui/threads/{thread}/runs/{run}", o.abortRun)
	o.mux.HandleFunc("POST /api/chat", o.chat)
	o.mux.HandleFunc("GET /api/chat/{id}/stream", o.resume)
	o.mux.HandleFunc("DELETE /api/chat/{id}/stream", o.abortChat)
	return o
}

// runKey is the key of an AG-UI run: its thread and its run id.
func runKey(thread, run string) string { return strconv.Itoa(len(thread)) + ":" + thread + run }

// startError responds to a run that could not start.
func startError(w http.ResponseWriter, err error) {
	if errors.Is(err, frontend.ErrRunExists) {
		http.Error(w, "orchestrator: "+err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Retry-After", "5")
	http.Error(w, "orchestrator: "+err.Error(), http.StatusServiceUnavailable)
}

// cancelTask asks the colleague to cancel the task of a remote call whose
// run its user aborted (a lost connection does not: the call goes on).
func (o *orchestrator) cancelTask(aborted bool, s *client.Stream) {
	if !aborted || s == nil || s.TaskID() == "" {
		return
	}
	ctx, cancel := context.WithTimeout(o.ctx, cancelTimeout)
	defer cancel()
	_, _ = o.c.Cancel(ctx, s.TaskID())
}

// ServeHTTP refuses a Host that is not a loopback name with the server's
// port (DNS rebinding), then serves.
func (o *orchestrator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port != o.port || !(host == "localhost" || host == "127.0.0.1" || host == "::1") {
		http.Error(w, "orchestrator: serves loopback names only (Host "+fmt.Sprintf("%q", r.Host)+")", http.StatusMisdirectedRequest)
		return
	}
	o.mux.ServeHTTP(w, r)
}

// wait waits for the chat turns still running.
func (o *orchestrator) wait() { o.wg.Wait() }

// readBody decodes a JSON request body of at most maxBodyBytes with the
// relay's one body reader (relay.ReadJSON): only application/json, which a
// page of another origin cannot send without a CORS preflight (never
// allowed here) — else 415; over maxBodyBytes 413; not the JSON expected
// 400.
func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if status, err := relay.ReadJSON(w, r, v, maxBodyBytes); err != nil {
		http.Error(w, "orchestrator: "+err.Error(), status)
		return false
	}
	return true
}

// questions are the lines of the user's text: one remote call each.
func questions(text string) []string {
	var qs []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && len(qs) < maxQuestions {
			qs = append(qs, line)
		}
	}
	return qs
}

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// answer is the scripted caller's last sentence, from its tools' results.
func answer(results []frontend.SubagentEnd) string {
	var b strings.Builder
	for _, res := range results {
		r := res.Result
		switch {
		case r.Verdict == schema.VerdictCompleted:
			fmt.Fprintf(&b, "My colleague says: %s\n", r.Reply)
		case r.Interrupt != nil:
			fmt.Fprintf(&b, "My colleague asks: %s\n", r.Interrupt.Question)
		default:
			fmt.Fprintf(&b, "My colleague could not answer (%s): %s\n", r.Verdict, r.Error)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// --- AG-UI ---------------------------------------------------------------

// agui runs one AG-UI run: its own sentence, one ask_colleague call per
// question, each remote call nested as a sub-agent (concurrently), then its
// answer — or, when a colleague asks something, RUN_FINISHED with the
// interrupts. A run whose input resumes them sends each response to the task
// that asked, nested again under the call that asked (resumeAGUI).
func (o *orchestrator) agui(w http.ResponseWriter, r *http.Request) {
	var in frontend.RunAgentInput
	if !readBody(w, r, &in) {
		return
	}
	qs := questions(in.LastUserText())
	if len(qs) == 0 && len(in.Resume) == 0 {
		http.Error(w, "orchestrator: no user message with text", http.StatusBadRequest)
		return
	}
	if in.ThreadID == "" || len(in.ThreadID) > 256 {
		http.Error(w, "orchestrator: a threadId of at most 256 bytes is required", http.StatusBadRequest)
		return
	}
	if in.RunID == "" {
		in.RunID = newID("run-")
	}
	if len(in.RunID) > 256 {
		http.Error(w, "orchestrator: a runId of at most 256 bytes is required", http.StatusBadRequest)
		return
	}
	run, err := o.runs.Start(runKey(in.ThreadID, in.RunID))
	if err != nil {
		startError(w, err)
		return
	}
	o.wg.Go(func() {
		defer run.End()
		o.aguiTurn(run, &in, qs)
	})
	run.Stream.Serve(w, r)
}

// aguiTurn runs one AG-UI run on the run's context, writing its log.
func (o *orchestrator) aguiTurn(run *frontend.Run[*frontend.AGUILog], in *frontend.RunAgentInput, qs []string) {
	ar := frontend.NewAGUIRun(run.Stream.Write)
	_ = ar.Emit(frontend.RunStarted(in.ThreadID, in.RunID))
	var results []frontend.SubagentEnd
	if len(in.Resume) > 0 {
		var err error
		if results, err = o.resumeAGUI(run, ar, in); err != nil {
			_ = ar.Emit(frontend.RunError(err.Error(), frontend.ResumeErrorCode(err)))
			return
		}
	} else {
		results = o.askAllAGUI(run, ar, qs)
	}
	var interrupts []frontend.AGUIInterrupt
	for _, res := range results {
		interrupts = append(interrupts, res.Interrupts...)
		o.threads.Hold(in.ThreadID, res.Suspended)
	}
	say(ar, newID("msg-"), answer(results))
	switch {
	case run.Aborted():
		_ = ar.Emit(frontend.RunFinished(in.ThreadID, in.RunID, frontend.AGUIOutcome{Type: "cancelled"}))
	case len(interrupts) > 0:
		_ = ar.Emit(frontend.RunFinished(in.ThreadID, in.RunID, frontend.OutcomeInterrupt(interrupts...)))
	default:
		_ = ar.Emit(frontend.RunFinished(in.ThreadID, in.RunID, frontend.OutcomeSuccess()))
	}
}

// reconnect serves a client that comes back to an AG-UI run: the events
// after its cursor (Last-Event-ID or ?after=), or all of them without one,
// then live (frontend.AGUILog). A POST's body (the RunAgentInput that
// @ag-ui/client's connect() sends) is not read: the path names the run.
func (o *orchestrator) reconnect(w http.ResponseWriter, r *http.Request) {
	run := o.runs.Get(runKey(r.PathValue("thread"), r.PathValue("run")))
	if run == nil {
		http.Error(w, "orchestrator: no such run (it never ran here, or ended too long ago)", http.StatusNotFound)
		return
	}
	run.Stream.Serve(w, r)
}

// abortRun is the user's explicit abort of an AG-UI run: its remote calls
// stop and their tasks are cancelled; the run ends with outcome cancelled.
func (o *orchestrator) abortRun(w http.ResponseWriter, r *http.Request) {
	if !o.runs.Abort(runKey(r.PathValue("thread"), r.PathValue("run"))) {
		http.Error(w, "orchestrator: no such run running", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// askAllAGUI says a sentence and makes one ask_colleague call per
// question, concurrently.
func (o *orchestrator) askAllAGUI(run *frontend.Run[*frontend.AGUILog], ar *frontend.AGUIRun, qs []string) []frontend.SubagentEnd {
	msgID := newID("msg-")
	say(ar, msgID, "Let me ask a colleague.")
	results := make([]frontend.SubagentEnd, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		id := newID("call-")
		args, _ := json.Marshal(map[string]string{"question": q})
		_ = ar.Emit(frontend.ToolCallStart(id, "ask_colleague", msgID))
		_ = ar.Emit(frontend.ToolCallArgs(id, string(args)))
		_ = ar.Emit(frontend.ToolCallEnd(id))
		wg.Go(func() {
			s, err := o.c.SendText(run.Context(), q)
			results[i] = o.nestAGUI(run, ar, id, s, err, frontend.SubagentOptions{Name: "colleague", Description: q})
		})
	}
	wg.Wait()
	return results
}

// resumeAGUI sends the user's responses to the questions the input's
// resume entries name: each response is the next turn of the task that
// asked, nested under the tool call that asked (a new sub-agent, linked to
// the one that asked), which gets the reply as its result. An entry for no
// question waiting in this thread fails the run before anything is sent.
func (o *orchestrator) resumeAGUI(run *frontend.Run[*frontend.AGUILog], ar *frontend.AGUIRun, in *frontend.RunAgentInput) ([]frontend.SubagentEnd, error) {
	ids := make([]string, len(in.Resume))
	for i, e := range in.Resume {
		ids[i] = e.InterruptID
	}
	calls, err := o.threads.Respond(in.ThreadID, ids...)
	if err != nil {
		return nil, err
	}
	say(ar, newID("msg-"), "Let me pass that on.")
	results := make([]frontend.SubagentEnd, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		text, cancelled := responseOf(call, in.Resume)
		if cancelled {
			_ = ar.Emit(frontend.ToolCallResult(call.ToolCallID+"-result", call.ToolCallID, "the question was withdrawn"))
			results[i] = frontend.SubagentEnd{Result: schema.Result{Verdict: schema.VerdictCanceled, Error: "the question was withdrawn"}}
			continue
		}
		wg.Go(func() {
			s, err := o.c.Respond(run.Context(), call.Task, text)
			results[i] = o.nestAGUI(run, ar, call.ToolCallID, s, err,
				frontend.SubagentOptions{Name: "colleague", Description: text, Continues: call.SubagentRunID})
		})
	}
	wg.Wait()
	return results, nil
}

// responseOf is the response the resume entries give to call (their
// texts, one per line), or cancelled when they withdraw its question.
func responseOf(call frontend.SuspendedCall, resume []frontend.AGUIResume) (text string, cancelled bool) {
	var texts []string
	for _, e := range resume {
		if !slices.Contains(call.InterruptIDs, e.InterruptID) {
			continue
		}
		if e.Status == "cancelled" {
			return "", true
		}
		texts = append(texts, e.Text())
	}
	return strings.Join(texts, "\n"), false
}

// nestAGUI nests the remote call s (or the error of starting it) under the
// tool call id; when the run's user aborted it, the remote task is
// cancelled.
func (o *orchestrator) nestAGUI(run *frontend.Run[*frontend.AGUILog], ar *frontend.AGUIRun, id string, s *client.Stream, err error, opts frontend.SubagentOptions) frontend.SubagentEnd {
	if err != nil {
		// No sub-agent ran: the call's result says why.
		_ = ar.Emit(frontend.ToolCallResult(id+"-result", id, "the colleague could not be asked: "+client.Reason(err)))
		return frontend.SubagentEnd{Result: schema.Result{Verdict: schema.VerdictFailed, Error: client.Reason(err)}}
	}
	opts.OnUpdate = o.onUpdate
	res, _ := ar.Nest(id, s, opts)
	o.cancelTask(run.Aborted(), s)
	return res
}

// say writes one text message of the orchestrator.
func say(run *frontend.AGUIRun, id, text string) {
	_ = run.Emit(frontend.TextMessageStart(id))
	_ = run.Emit(frontend.TextMessageContent(id, text))
	_ = run.Emit(frontend.TextMessageEnd(id))
}

// --- useChat -------------------------------------------------------------

// chat starts a chat turn — outside the request, so that a page reload
// does not stop it — and streams it to the request. A turn of the chat that
// still runs is aborted: its user, who sends a new message, left it.
func (o *orchestrator) chat(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID       string `json:"id"`
		Messages []struct {
			Role  string `json:"role"`
			Parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if !readBody(w, r, &in) {
		return
	}
	var text []string
	for _, m := range in.Messages {
		if m.Role == "user" {
			text = text[:0]
			for _, p := range m.Parts {
				if p.Type == "text" {
					text = append(text, p.Text)
				}
			}
		}
	}
	all := strings.Join(text, "\n")
	qs := questions(all)
	if in.ID == "" || len(in.ID) > 256 || len(qs) == 0 {
		http.Error(w, "orchestrator: a chat id and a user message with text are required", http.StatusBadRequest)
		return
	}
	run, err := o.chats.Replace(in.ID)
	if err != nil {
		startError(w, err)
		return
	}
	// The chat's next user message is the response to the questions its
	// colleagues asked; when they expired, the message says so (and is not
	// sent as a question: it was a response).
	calls, err := o.chatQuestions.Next(in.ID)
	if err != nil && !errors.Is(err, frontend.ErrInterruptUnknown) {
		calls = nil
	} else {
		err = nil
	}
	o.wg.Go(func() {
		defer run.End()
		o.chatTurn(run, in.ID, qs, all, calls, err)
	})
	run.Stream.Serve(w, r)
}

// resume serves useChat's resume: the chat's latest turn — live while it
// runs, whole after it ended (for keepEnded) — else 204.
func (o *orchestrator) resume(w http.ResponseWriter, r *http.Request) {
	run := o.chats.Get(r.PathValue("id"))
	if run == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	run.Stream.Serve(w, r)
}

// abortChat is the user's explicit stop of a chat's turn (useChat's stop()
// only drops the connection, which leaves the turn running): its remote
// calls stop and their tasks are cancelled.
func (o *orchestrator) abortChat(w http.ResponseWriter, r *http.Request) {
	if !o.chats.Abort(r.PathValue("id")) {
		http.Error(w, "orchestrator: no turn of that chat is running", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// chatTurn writes one assistant message: its sentence, one ask_colleague
// tool part per question whose output is the remote call's view, then its
// answer. When the chat's colleagues asked something (calls), the message
// is the user's response to them instead: each call's task takes it as its next turn,
// shown in a tool part of the same toolCallId as the call that asked. A
// question that expired (expired) is said, and nothing is sent.
func (o *orchestrator) chatTurn(run *frontend.Run[*frontend.ChatStream], chat string, qs []string, text string, calls []frontend.SuspendedCall, expired error) {
	cs := run.Stream
	_ = cs.Write(map[string]any{"type": "start", "messageId": newID("msg-")})
	write := func(id, text string) {
		_ = cs.Write(map[string]any{"type": "text-start", "id": id})
		_ = cs.Write(map[string]any{"type": "text-delta", "id": id, "delta": text})
		_ = cs.Write(map[string]any{"type": "text-end", "id": id})
	}
	if expired != nil {
		_ = cs.Write(map[string]any{"type": "error", "errorText": expired.Error()})
		_ = cs.Write(map[string]any{"type": "finish", "finishReason": "error"})
		return
	}
	type call struct {
		id    string
		input map[string]any
		start func(context.Context) (*client.Stream, error)
	}
	var todo []call
	if len(calls) > 0 {
		write(newID("txt-"), "Let me pass that on.")
		for _, c := range calls {
			todo = append(todo, call{c.ToolCallID, map[string]any{"answer": text},
				func(ctx context.Context) (*client.Stream, error) { return o.c.Respond(ctx, c.Task, text) }})
		}
	} else {
		write(newID("txt-"), "Let me ask a colleague.")
		for _, q := range qs {
			todo = append(todo, call{newID("call-"), map[string]any{"question": q},
				func(ctx context.Context) (*client.Stream, error) { return o.c.SendText(ctx, q) }})
		}
	}
	results := make([]frontend.SubagentEnd, len(todo))
	var wg sync.WaitGroup
	for i, c := range todo {
		_ = cs.Write(map[string]any{"type": "tool-input-start", "toolCallId": c.id, "toolName": "ask_colleague"})
		_ = cs.Write(map[string]any{"type": "tool-input-available", "toolCallId": c.id, "toolName": "ask_colleague", "input": c.input})
		wg.Go(func() {
			s, err := c.start(run.Context())
			if err != nil {
				_ = cs.Write(map[string]any{"type": "tool-output-error", "toolCallId": c.id, "errorText": client.Reason(err)})
				results[i] = frontend.SubagentEnd{Result: schema.Result{Verdict: schema.VerdictFailed, Error: client.Reason(err)}}
				return
			}
			pace := o.pace
			pace.OnUpdate = o.onUpdate
			results[i], _ = cs.NestTool(c.id, s, pace)
			o.cancelTask(run.Aborted(), s)
		})
	}
	wg.Wait()
	for _, res := range results {
		o.chatQuestions.Hold(chat, res.Suspended)
	}
	write(newID("txt-"), answer(results))
	_ = cs.Write(map[string]any{"type": "finish", "finishReason": "stop"})
}
