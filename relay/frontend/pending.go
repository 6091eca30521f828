package frontend

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/schema"
)

// Responding to a nested question (PROTOCOL.md §9.3): a nested call that
// ends input-required (or auth-required) leaves the remote task waiting and
// the caller's tool call without a result. The user's response is the
// task's next turn (client.Client.Respond on SuspendedCall.Task), nested
// again under the same tool call (AGUIRun.Nest / ChatStream.NestTool with
// SuspendedCall.ToolCallID), whose result it then carries. PendingResponses
// remembers the waiting calls between the run that asked and the run that
// responds.

// SuspendedCall is a nested call that waits for the user's response.
type SuspendedCall struct {
	// Task is the remote task that waits: the response is its next turn.
	Task a2a.TaskID
	// ToolCallID is the caller's tool call whose result is still due.
	ToolCallID string
	// SubagentRunID is the AG-UI sub-agent that asked ("" on useChat).
	SubagentRunID string
	// InterruptIDs are the AG-UI interrupt ids of the question (one per
	// item, at least one): a RunAgentInput.resume entry names one.
	InterruptIDs []string
	// Question is what the remote agent asks.
	Question string
}

// The errors of a response that cannot be delivered. Never handle them by
// sending the text as a new question: the question would stay open and the
// response go where it was not asked.
var (
	ErrInterruptUnknown   = errors.New("frontend: no nested call of this conversation waits for that interrupt")
	ErrInterruptExpired   = errors.New("frontend: the question of that interrupt expired; ask again")
	ErrInterruptResponded = errors.New("frontend: that interrupt already had its response")
)

// ResumeErrorCode is the RUN_ERROR code of an error of PendingResponses:
// interrupt_unknown, interrupt_expired or interrupt_answered (the wire
// code of [ErrInterruptResponded], kept); "" for another error.
func ResumeErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrInterruptUnknown):
		return "interrupt_unknown"
	case errors.Is(err, ErrInterruptExpired):
		return "interrupt_expired"
	case errors.Is(err, ErrInterruptResponded):
		return "interrupt_answered"
	}
	return ""
}

// The bounds of PendingResponses: the calls and the responded interrupt ids
// kept per conversation (a run suspends at most that many calls).
const (
	maxPendingPerKey   = 64
	maxRespondedPerKey = 256
)

// PendingResponses keeps, per conversation (an AG-UI thread id, a useChat
// chat id), the nested calls that wait for a response: at most max
// conversations (past it the least recently used one is forgotten, first
// those whose calls all expired) and for ttl after a call suspended. It
// also remembers, as long as the conversation is kept, the interrupts
// already responded to, so that a second response is told apart from one
// to an unknown interrupt. It is safe for concurrent use.
//
// A conversation key is the client's: whoever can name it can respond to
// its question. Serve it to the conversation's owner only (check who may
// use a thread or chat id before calling Respond or Next).
type PendingResponses struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	convs map[string]*pendingConv
	// now is time.Now; tests move it.
	now func() time.Time
}

type pendingConv struct {
	calls     []pendingCall
	responded []string
	used      time.Time
}

type pendingCall struct {
	SuspendedCall
	at time.Time
}

// NewPendingResponses keeps the waiting calls of at most max conversations
// (default 1024) for ttl each (default 30 minutes).
func NewPendingResponses(max int, ttl time.Duration) *PendingResponses {
	if max <= 0 {
		max = 1024
	}
	if ttl <= 0 {
		ttl = 30 * time.Minute
	}
	return &PendingResponses{max: max, ttl: ttl, convs: map[string]*pendingConv{}, now: time.Now}
}

// Hold remembers the calls of conversation key that wait for a response
// (the Suspended of each SubagentEnd that has one; nil ones are skipped).
func (p *PendingResponses) Hold(key string, calls ...*SuspendedCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	c := p.convs[key]
	for _, s := range calls {
		if s == nil {
			continue
		}
		if c == nil {
			p.makeRoomLocked()
			c = &pendingConv{}
			p.convs[key] = c
		}
		if len(c.calls) == maxPendingPerKey {
			c.calls = slices.Delete(c.calls, 0, 1)
		}
		cp := *s
		cp.InterruptIDs = slices.Clone(s.InterruptIDs)
		c.calls = append(c.calls, pendingCall{SuspendedCall: cp, at: now})
	}
	if c != nil {
		c.used = now
	}
}

// makeRoomLocked forgets a conversation when max are kept: the least
// recently used among those with no live call, else the least recently
// used.
func (p *PendingResponses) makeRoomLocked() {
	if len(p.convs) < p.max {
		return
	}
	var oldest, idle string
	for k, c := range p.convs {
		if oldest == "" || c.used.Before(p.convs[oldest].used) {
			oldest = k
		}
		if !p.liveLocked(c) && (idle == "" || c.used.Before(p.convs[idle].used)) {
			idle = k
		}
	}
	delete(p.convs, firstNonEmpty(idle, oldest))
}

func (p *PendingResponses) liveLocked(c *pendingConv) bool {
	now := p.now()
	for _, pc := range c.calls {
		if now.Sub(pc.at) <= p.ttl {
			return true
		}
	}
	return false
}

// Respond takes the calls of conversation key that a response to the
// interrupts ids is for (each call once, in the order held): they are no
// longer pending and their ids count as responded to. When any id cannot
// take a response it takes none and returns the error
// (ErrInterruptUnknown, ErrInterruptExpired, ErrInterruptResponded) of the
// first such id.
func (p *PendingResponses) Respond(key string, ids ...string) ([]SuspendedCall, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.convs[key]
	if len(ids) == 0 {
		return nil, ErrInterruptUnknown
	}
	var take []int
	for _, id := range ids {
		i := -1
		if c != nil {
			i = slices.IndexFunc(c.calls, func(pc pendingCall) bool { return slices.Contains(pc.InterruptIDs, id) })
		}
		switch {
		case i >= 0 && p.now().Sub(c.calls[i].at) > p.ttl:
			c.calls = slices.Delete(c.calls, i, i+1)
			return nil, ErrInterruptExpired
		case i >= 0:
			if !slices.Contains(take, i) {
				take = append(take, i)
			}
		case c != nil && slices.Contains(c.responded, id):
			return nil, ErrInterruptResponded
		default:
			return nil, ErrInterruptUnknown
		}
	}
	slices.Sort(take)
	return p.takeLocked(c, take), nil
}

// Next takes every call of conversation key that waits: the next user
// message of a useChat chat is the response to them. It returns ErrInterruptUnknown
// when none waits (the message is a question of its own), and
// ErrInterruptExpired when all that waited expired (they are dropped: the
// message after that one is a question of its own).
func (p *PendingResponses) Next(key string) ([]SuspendedCall, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.convs[key]
	if c == nil || len(c.calls) == 0 {
		return nil, ErrInterruptUnknown
	}
	var take []int
	for i, pc := range c.calls {
		if p.now().Sub(pc.at) <= p.ttl {
			take = append(take, i)
		}
	}
	if len(take) == 0 {
		c.calls = nil
		return nil, ErrInterruptExpired
	}
	return p.takeLocked(c, take), nil
}

// takeLocked removes the calls at the indexes take (ascending) of c and
// returns them, their ids noted as responded to.
func (p *PendingResponses) takeLocked(c *pendingConv, take []int) []SuspendedCall {
	out := make([]SuspendedCall, 0, len(take))
	for n, i := range take {
		pc := c.calls[i-n]
		out = append(out, pc.SuspendedCall)
		c.responded = append(c.responded, pc.InterruptIDs...)
		c.calls = slices.Delete(c.calls, i-n, i-n+1)
	}
	if over := len(c.responded) - maxRespondedPerKey; over > 0 {
		c.responded = slices.Delete(c.responded, 0, over)
	}
	c.used = p.now()
	return out
}

// suspended is the SuspendedCall of a nested call that ended interrupted
// (out), asked in the remote task task; ids are its interrupt ids (nil:
// those aguiInterrupts gives it).
func suspended(task, toolCallID, subagentRunID string, ids []string, out *schema.Result) *SuspendedCall {
	q, items := question(out)
	if ids == nil {
		for i := range max(len(items), 1) {
			ids = append(ids, aguiInterruptID(task, i))
		}
	}
	return &SuspendedCall{Task: a2a.TaskID(task), ToolCallID: toolCallID, SubagentRunID: subagentRunID, InterruptIDs: ids, Question: q}
}
