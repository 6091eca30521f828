package relay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/relay/internal/sse"
)

// The front ends' own endpoints (AG-UI's run, the AI SDK's useChat): they
// accept a front end's own request, send its last user message to the
// agent, publish the turn (Attach: one upstream, however many connections
// watch it) and respond with the same subscription as GET
// /tasks/{id}/events, encoded in the front end's protocol by package
// relay/frontend's encoders. A cut connection resumes through the relay
// like any other: a snapshot, then live, from whichever replica.

// Agent is what the front-end endpoints ([Handler.AGUI], [Handler.Chat])
// talk to: *client.Client is one. Send sends a message and streams its
// turn; ListTasks (A2A's tasks/list) finds a conversation's latest task
// when a useChat page resumes on a process that did not serve its POST.
type Agent interface {
	Send(ctx context.Context, msg *a2a.Message) (*client.Stream, error)
	ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error)
}

// maxFrontendTextBytes bounds the text sent to the agent (the last user
// message's); frontend.MaxRequestBytes bounds the whole request.
const maxFrontendTextBytes = 256 << 10

// AGUI returns the handler of an AG-UI run endpoint (mounted by `a2a-tail
// web` at POST /ag-ui): it reads the RunAgentInput that @ag-ui/client's
// HttpAgent POSTs, sends the last user message to agent — in the
// conversation named by the threadId (TaskSet.Conversation), so a thread
// continues on its context; as the response to the task an interrupt named,
// when the input resumes one — and streams the turn as AG-UI events (see
// frontend.FormatAGUI for reconnecting).
//
// The Authorizer is asked with the task "" before a message is sent, and
// with the task a resume responds to before the response is sent (so a
// resume of a task this relay may not read is the same 404 as reading it,
// and sends nothing); then with the task the turn runs in. A resume that names no
// interrupt of this relay is a 400, never a new task. A request that cannot
// be sent gets a 4xx JSON error; a turn the agent refuses is a RUN_STARTED
// and a RUN_ERROR. It responds to the CORS preflight (OPTIONS) for the origins
// given to WithCORS: mount it without a method in the pattern to let them
// through.
func (h *Handler) AGUI(agent Agent) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			h.frontPreflight(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, "relay: POST a RunAgentInput")
			return
		}
		if !h.admit(w, r) {
			return
		}
		var in frontend.RunAgentInput
		msg, err := func() (*a2a.Message, error) {
			if err := readFrontJSON(w, r, &in); err != nil {
				return nil, err
			}
			if err := ValidateTaskID(in.ThreadID); err != nil {
				return nil, badRequest("relay: threadId: %v", err)
			}
			id, text, task, err := in.Turn(ValidateTaskID)
			if err != nil {
				return nil, badRequest("%v", err)
			}
			if task != "" {
				// The same decision as reading the task: a resume is a
				// response to the task, and responses only go to tasks r may
				// read (404 for one this relay did not start).
				if err := h.authorize(r, task); err != nil {
					return nil, err
				}
				return turnMessage(id, text, "", task)
			}
			return turnMessage(id, text, h.conversation(in.ThreadID, true), "")
		}()
		if err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		h.sendAndServe(w, r, agent, msg, frontend.NewAGUIEncoder(&in, false), nil, func(err error) {
			frontend.RefuseAGUIRun(w, &in, client.Reason(err))
		})
	})
}

// chatRequest is the part of useChat's POST body the relay reads
// (DefaultChatTransport: {id, messages, trigger, messageId, ...body}).
type chatRequest struct {
	ID       string `json:"id"`
	Messages []struct {
		ID    string `json:"id"`
		Role  string `json:"role"`
		Parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"messages"`
}

// maxChats bounds the chat id → task entries a Chat handler remembers (the
// oldest goes first).
const maxChats = 4096

// Chat returns the handler of useChat's endpoints, for `a2a-tail web` at
// /api/chat and /api/chat/: a POST is a chat request — the last user
// message goes to agent in the context named by the chat id, and the turn
// streams back as a UI message stream (frontend.FormatAISDK) — and a GET of
// <chat id>/stream is useChat({resume: true})'s resume: 204 when the chat
// has no task, else the latest task's turn as a resumed stream, live until
// it settles.
//
// The chat id names the conversation; its A2A context id is the one
// TaskSet.Conversation gives it (the chat id itself when the relay has no
// TaskSet). The handler remembers each chat's latest task (up to
// maxChats); a replica that did not serve the chat's POST (or a restarted
// one) asks the agent with ListTasks for the context's most recently
// updated task — one call per resume, only for a conversation this relay
// knows — and responds 204 when there is none or the agent cannot list
// (ListTasks is optional in A2A, and a2a-go's store lists only an
// authenticated caller's tasks). The Authorizer is asked with the task ""
// first, then with the task. It responds to the CORS preflight (OPTIONS) for
// the origins given to WithCORS.
func (h *Handler) Chat(agent Agent) http.Handler {
	return &chatHandler{h: h, agent: agent, tasks: fifo[string]{max: maxChats, m: map[string]string{}}}
}

type chatHandler struct {
	h     *Handler
	agent Agent

	mu    sync.Mutex
	tasks fifo[string] // chat id → latest task id
}

func (c *chatHandler) remember(chat, task string) {
	if st := c.h.cfg.store; st != nil {
		// Shared, so that a replica that did not serve the POST resumes
		// the chat (WithStore); the local map stays the fallback.
		if err := st.SetChat(c.h.ctx, chat, task); err != nil {
			_ = c.h.storeFailed(task, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tasks.put(chat, task)
}

func (c *chatHandler) recall(chat string) string {
	if st := c.h.cfg.store; st != nil {
		task, err := st.Chat(c.h.ctx, chat)
		if err == nil && task != "" {
			return task
		}
		if err != nil {
			_ = c.h.storeFailed("", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tasks.m[chat]
}

func (c *chatHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := c.h
	if r.Method == http.MethodOptions {
		h.frontPreflight(w, r)
		return
	}
	if !h.admit(w, r) {
		return
	}
	if rest, ok := strings.CutSuffix(r.URL.Path, "/stream"); ok && r.Method == http.MethodGet {
		c.resume(w, r, rest[strings.LastIndexByte(rest, '/')+1:])
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "relay: POST a chat request, or GET <chat id>/stream")
		return
	}
	var in chatRequest
	msg, err := func() (*a2a.Message, error) {
		if err := readFrontJSON(w, r, &in); err != nil {
			return nil, err
		}
		if err := ValidateTaskID(in.ID); err != nil {
			return nil, badRequest("relay: chat id: %v", err)
		}
		for i := len(in.Messages) - 1; i >= 0; i-- {
			if m := in.Messages[i]; m.Role == "user" {
				var text []string
				for _, p := range m.Parts {
					if p.Type == "text" {
						text = append(text, p.Text)
					}
				}
				return turnMessage(m.ID, strings.Join(text, "\n"), h.conversation(in.ID, true), "")
			}
		}
		return nil, badRequest("relay: no user message")
	}()
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	named := func(task string) { c.remember(in.ID, task) }
	h.sendAndServe(w, r, c.agent, msg, frontend.NewAISDKEncoder(false), named, func(err error) {
		frontend.RefuseChat(w, client.Reason(err))
	})
}

// resume serves GET <chat id>/stream.
func (c *chatHandler) resume(w http.ResponseWriter, r *http.Request, chat string) {
	h := c.h
	if err := ValidateTaskID(chat); err != nil {
		writeError(w, http.StatusBadRequest, "relay: chat id: "+err.Error())
		return
	}
	task := c.recall(chat)
	if conv := h.conversation(chat, false); task == "" && conv != "" {
		var err error
		if task, err = latestTask(r.Context(), c.agent, conv); err != nil {
			h.cfg.logger.Info("relay: chat resume: cannot list the chat's tasks", "err", err)
		}
	}
	if task == "" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.serveFront(w, r, task, frontend.NewAISDKEncoder(true))
}

// latestTask returns the id of the most recently updated task of a context,
// "" when it has none.
func latestTask(ctx context.Context, agent Agent, contextID string) (string, error) {
	res, err := agent.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: contextID, PageSize: 100})
	if err != nil {
		return "", err
	}
	var best *a2a.Task
	for _, t := range res.Tasks {
		if t == nil || ValidateTaskID(string(t.ID)) != nil {
			continue
		}
		if best == nil || later(t.Status.Timestamp, best.Status.Timestamp) {
			best = t
		}
	}
	if best == nil {
		return "", nil
	}
	return string(best.ID), nil
}

func later(a, b *time.Time) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return a.After(*b)
}

func badRequest(format string, a ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

// readFrontJSON decodes a bounded request body. It takes only
// application/json (what HttpAgent and DefaultChatTransport send): a page
// of another origin cannot send that without a CORS preflight, which the
// relay allows only for origins given to WithCORS — so a page the user
// merely visits cannot make a loopback relay send messages to the agent on
// the user's behalf.
func readFrontJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if status, err := ReadJSON(w, r, v, frontend.MaxRequestBytes); err != nil {
		return &httpError{status, err.Error()}
	}
	return nil
}

// turnMessage builds the A2A message of a front end's user message: its id
// becomes the turn's identity (so the ids of everything the encoders send
// derive from it), the conversation id becomes the context.
func turnMessage(id, text, contextID, taskID string) (*a2a.Message, error) {
	if text == "" {
		return nil, badRequest("relay: no user message with text to send")
	}
	if len(text) > maxFrontendTextBytes {
		return nil, badRequest("relay: the user message is over %d bytes", maxFrontendTextBytes)
	}
	if !utf8.ValidString(text) {
		return nil, badRequest("relay: the user message is not valid UTF-8")
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	if id != "" && ValidateTaskID(id) == nil {
		msg.ID = id
	}
	msg.ContextID = contextID
	msg.TaskID = a2a.TaskID(taskID)
	return msg, nil
}

// frontPreflight responds to the CORS preflight of a front-end POST: only for
// the origins given to WithCORS (a front end served from another origin,
// e.g. a Next.js dev server), never for others — the same rule as the
// events endpoint, with the method and header of a JSON POST.
func (h *Handler) frontPreflight(w http.ResponseWriter, r *http.Request) {
	h.respondPreflight(w, r, "POST, GET", "Content-Type, Authorization, Last-Event-ID")
}

// admit sets the CORS headers of a request that opens a turn and asks the
// Authorizer with the task "" (no task exists yet). It reports false when
// the Authorizer refused, with the error already written.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request) bool {
	h.cors(w, r)
	if err := h.authorize(r, ""); err != nil {
		writeError(w, statusOf(err), err.Error())
		return false
	}
	return true
}

// conversation is the A2A context id to send a browser's conversation id
// under (TaskSet.Conversation of the set given to WithStartedTasks); id
// itself without a set, as every task is then readable too.
func (h *Handler) conversation(id string, create bool) string {
	if h.cfg.started == nil {
		return id
	}
	return h.cfg.started.Conversation(id, create)
}

// sendAndServe sends msg, publishes its turn and serves the turn's
// subscription to w with enc; named, when set, is told the task. The
// upstream runs under the handler's context, not the request's: a client
// that drops the connection finds the turn still running when it
// reconnects. fail responds to a turn that ended before naming its task.
func (h *Handler) sendAndServe(w http.ResponseWriter, r *http.Request, agent Agent, msg *a2a.Message, enc Encoder, named func(task string), fail func(error)) {
	held, err := h.hold() // at most WithMaxTurns at once
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s, err := agent.Send(h.ctx, msg)
	if err != nil {
		held()
		fail(err)
		return
	}
	tasks := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		defer held()
		var last error
		for u, err := range h.Attach(s) {
			if err != nil {
				last = err
				continue
			}
			if op, ok := u.Op(); ok && op.Task != "" {
				select {
				case tasks <- op.Task:
				default:
				}
			}
		}
		done <- last
	}()
	serve := func(task string) {
		if named != nil {
			named(task)
		}
		h.serveFront(w, r, task, enc)
	}
	select {
	case task := <-tasks:
		serve(task)
	case err := <-done:
		select {
		case task := <-tasks: // named, then ended at once
			serve(task)
			return
		default:
		}
		// The turn ended before any op named its task: the agent refused
		// it, or responded with a message and no task.
		if err == nil {
			err = errors.New("relay: the agent responded without a task")
		}
		fail(err)
	case <-r.Context().Done():
	}
}

// serveFront asks the Authorizer whether r may watch task, then serves the
// task's subscription with enc, as GET /tasks/{id}/events would.
func (h *Handler) serveFront(w http.ResponseWriter, r *http.Request, task string, enc Encoder) {
	if err := h.authorize(r, task); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	h.serveEncoder(w, r, task, enc)
}

// hold counts a running turn of the front-end endpoints, a goroutine that
// must end before Close returns, and reserves what its stream holds in the
// handler's budget as a Follow's is (followBytes: the turn it merges runs
// in the endpoints' agent, as a Follow's in the Follower). It returns the
// func that ends the count, or a 503 error once the Handler is closed,
// WithMaxTurns turns run, or the budget has no room.
func (h *Handler) hold() (func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errBusy("relay: closed")
	}
	if h.held >= h.cfg.maxTurns {
		h.refused.Add(1)
		return nil, errBusy("relay: too many turns running")
	}
	n := h.followBytes()
	if h.bytes.Load()+n > h.cfg.maxBytes || !h.merged.Reserve(n) {
		h.refused.Add(1)
		return nil, errBusy("relay: memory budget reached (the tasks held and their turns use it all)")
	}
	h.held++
	h.wg.Add(1) // under mu, so that Close's Wait never races a late Add
	return func() {
		h.merged.Release(n)
		h.mu.Lock()
		h.held--
		h.mu.Unlock()
		h.wg.Done()
	}, nil
}

// serveEncoder serves task's subscription with enc, charging an encoder
// that keeps a view of its own (sse.Budgeted) to the task's budget.
func (h *Handler) serveEncoder(w http.ResponseWriter, r *http.Request, task string, enc Encoder) {
	t, sub, err := h.acquire(task)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	defer h.release(t, sub)
	if fs, ok := enc.(sse.Budgeted); ok {
		b, err := h.reserveFront(t, fs.StateBytes())
		if err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		defer b.ReleaseAll()
		fs.SetBudget(b)
	}
	if err := h.waitReady(r, t); err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	h.stream(w, r, t, sub, enc)
}
