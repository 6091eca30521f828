package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/schema"
)

// The bounds of a request: its body, the questions of one message; and the
// chat turns kept (each keeps its message for resume, at most
// frontend.MaxChatStreamBytes): running ones until they end, ended ones for
// keepEnded or until a new turn needs the room, oldest first.
const (
	maxBodyBytes = 1 << 20
	maxQuestions = 4
	maxChats     = 64
	keepEnded    = 10 * time.Minute
)

// colleague is the remote agent: *client.Client is one.
type colleague interface {
	SendText(ctx context.Context, text string) (*client.Stream, error)
}

// orchestrator serves /ag-ui and /api/chat with a scripted caller.
type orchestrator struct {
	ctx  context.Context
	c    colleague
	port string
	mux  *http.ServeMux
	wg   sync.WaitGroup
	// pace paces the preliminary outputs (zero: the defaults).
	pace frontend.ChatToolOptions

	mu    sync.Mutex
	chats map[string]*keptTurn // the kept turns, by chat id
	now   func() time.Time     // time.Now; tests move it
}

// keptTurn is a chat's latest turn: running, or ended at ended.
type keptTurn struct {
	cs    *frontend.ChatStream
	ended time.Time // zero while it runs
}

func newOrchestrator(ctx context.Context, c colleague, addr string) *orchestrator {
	_, port, _ := net.SplitHostPort(addr)
	o := &orchestrator{ctx: ctx, c: c, port: port, mux: http.NewServeMux(), chats: map[string]*keptTurn{}, now: time.Now}
	o.mux.HandleFunc("POST /ag-ui", o.agui)
	o.mux.HandleFunc("POST /api/chat", o.chat)
	o.mux.HandleFunc("GET /api/chat/{id}/stream", o.resume)
	return o
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

// readBody decodes a JSON request body of at most maxBodyBytes; only
// application/json, which a page of another origin cannot send without a
// CORS preflight (never answered here).
func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "orchestrator: the request must be application/json", http.StatusUnsupportedMediaType)
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		http.Error(w, "orchestrator: bad request: "+err.Error(), http.StatusBadRequest)
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
// interrupts.
func (o *orchestrator) agui(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ThreadID string `json:"threadId"`
		RunID    string `json:"runId"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if !readBody(w, r, &in) {
		return
	}
	var text string
	for _, m := range in.Messages {
		if m.Role == "user" {
			text = contentText(m.Content)
		}
	}
	qs := questions(text)
	if len(qs) == 0 {
		http.Error(w, "orchestrator: no user message with text", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	run := frontend.NewAGUIRun(func(ev map[string]any) error {
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return err
		}
		return rc.Flush()
	})
	_ = run.Emit(map[string]any{"type": "RUN_STARTED", "threadId": in.ThreadID, "runId": in.RunID})
	msgID := newID("msg-")
	say(run, msgID, "Let me ask a colleague.")
	results := make([]frontend.SubagentEnd, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		id := newID("call-")
		args, _ := json.Marshal(map[string]string{"question": q})
		_ = run.Emit(map[string]any{"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "ask_colleague", "parentMessageId": msgID})
		_ = run.Emit(map[string]any{"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": string(args)})
		_ = run.Emit(map[string]any{"type": "TOOL_CALL_END", "toolCallId": id})
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = o.askAGUI(r.Context(), run, id, q)
		}()
	}
	wg.Wait()
	var interrupts []any
	for _, res := range results {
		for _, in := range res.Interrupts {
			interrupts = append(interrupts, in)
		}
	}
	say(run, newID("msg-"), answer(results))
	if len(interrupts) > 0 {
		_ = run.Emit(map[string]any{"type": "RUN_FINISHED", "threadId": in.ThreadID, "runId": in.RunID,
			"outcome": map[string]any{"type": "interrupt", "interrupts": interrupts}})
		return
	}
	_ = run.Emit(map[string]any{"type": "RUN_FINISHED", "threadId": in.ThreadID, "runId": in.RunID,
		"outcome": map[string]any{"type": "success"}})
}

// askAGUI makes one remote call and nests it under the tool call id.
func (o *orchestrator) askAGUI(ctx context.Context, run *frontend.AGUIRun, id, q string) frontend.SubagentEnd {
	s, err := o.c.SendText(ctx, q)
	if err != nil {
		// No sub-agent ran: the call's result says why.
		_ = run.Emit(map[string]any{"type": "TOOL_CALL_RESULT", "messageId": id + "-result", "toolCallId": id, "role": "tool",
			"content": "the colleague could not be reached: " + err.Error()})
		return frontend.SubagentEnd{Result: schema.Result{Verdict: schema.VerdictFailed, Error: err.Error()}}
	}
	res, _ := run.Nest(id, s, frontend.SubagentOptions{Name: "colleague", Description: q})
	return res
}

// say writes one text message of the orchestrator.
func say(run *frontend.AGUIRun, id, text string) {
	_ = run.Emit(map[string]any{"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"})
	_ = run.Emit(map[string]any{"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": text})
	_ = run.Emit(map[string]any{"type": "TEXT_MESSAGE_END", "messageId": id})
}

// contentText is the text of an AG-UI message content: a string, or the
// text parts of a list.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// --- useChat -------------------------------------------------------------

// chat starts a chat turn — outside the request, so that a page reload
// does not stop it — and streams it to the request.
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
	qs := questions(strings.Join(text, "\n"))
	if in.ID == "" || len(in.ID) > 256 || len(qs) == 0 {
		http.Error(w, "orchestrator: a chat id and a user message with text are required", http.StatusBadRequest)
		return
	}
	cs := frontend.NewChatStream()
	if !o.remember(in.ID, cs) {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "orchestrator: too many chat turns running", http.StatusServiceUnavailable)
		return
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer o.ended(in.ID, cs)
		o.chatTurn(cs, qs)
	}()
	cs.Serve(w, r)
}

// resume serves useChat's resume: the chat's latest turn — live while it
// runs, whole after it ended (for keepEnded) — else 204.
func (o *orchestrator) resume(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.dropEndedLocked(false)
	var cs *frontend.ChatStream
	if t := o.chats[r.PathValue("id")]; t != nil {
		cs = t.cs
	}
	o.mu.Unlock()
	if cs == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	cs.Serve(w, r)
}

// remember records the running turn of a chat; false when maxChats turns
// still run.
func (o *orchestrator) remember(id string, cs *frontend.ChatStream) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.chats[id]; !ok && len(o.chats) >= maxChats {
		o.dropEndedLocked(true)
		if len(o.chats) >= maxChats {
			return false
		}
	}
	o.chats[id] = &keptTurn{cs: cs}
	return true
}

// ended marks a chat's turn as ended: a resume gets its whole message
// until keepEnded has passed or the room is needed.
func (o *orchestrator) ended(id string, cs *frontend.ChatStream) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if t := o.chats[id]; t != nil && t.cs == cs {
		t.ended = o.now()
	}
}

// dropEndedLocked forgets the ended turns older than keepEnded and, with
// oldest, the oldest ended turn too. The caller holds o.mu.
func (o *orchestrator) dropEndedLocked(oldest bool) {
	var first string
	for id, t := range o.chats {
		switch {
		case t.ended.IsZero():
		case o.now().Sub(t.ended) > keepEnded:
			delete(o.chats, id)
		case first == "" || t.ended.Before(o.chats[first].ended):
			first = id
		}
	}
	if oldest && first != "" {
		delete(o.chats, first)
	}
}

// chatTurn writes one assistant message: its sentence, one ask_colleague
// tool part per question whose output is the remote call's view, then its
// answer.
func (o *orchestrator) chatTurn(cs *frontend.ChatStream, qs []string) {
	defer cs.Close()
	_ = cs.Write(map[string]any{"type": "start", "messageId": newID("msg-")})
	write := func(id, text string) {
		_ = cs.Write(map[string]any{"type": "text-start", "id": id})
		_ = cs.Write(map[string]any{"type": "text-delta", "id": id, "delta": text})
		_ = cs.Write(map[string]any{"type": "text-end", "id": id})
	}
	write(newID("txt-"), "Let me ask a colleague.")
	results := make([]frontend.SubagentEnd, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		id := newID("call-")
		_ = cs.Write(map[string]any{"type": "tool-input-start", "toolCallId": id, "toolName": "ask_colleague"})
		_ = cs.Write(map[string]any{"type": "tool-input-available", "toolCallId": id, "toolName": "ask_colleague",
			"input": map[string]any{"question": q}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := o.c.SendText(o.ctx, q)
			if err != nil {
				_ = cs.Write(map[string]any{"type": "tool-output-error", "toolCallId": id, "errorText": err.Error()})
				results[i] = frontend.SubagentEnd{Result: schema.Result{Verdict: schema.VerdictFailed, Error: err.Error()}}
				return
			}
			results[i], _ = cs.NestTool(id, s, o.pace)
		}()
	}
	wg.Wait()
	write(newID("txt-"), answer(results))
	_ = cs.Write(map[string]any{"type": "finish", "finishReason": "stop"})
}
