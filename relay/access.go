package relay

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ErrNotFound is what an [Authorizer] wraps to respond 404 instead of 403
// (a policy that must not reveal whether a task exists).
var ErrNotFound = errors.New("relay: task not found")

// maxTaskIDBytes caps a task id in a request path.
const maxTaskIDBytes = 256

// ValidateTaskID checks a task id from a request: 1 to maxTaskIDBytes bytes
// of letters, digits and -._~:@+= (what A2A agents use: UUIDs and similar).
// Anything else — slashes, spaces, controls, percent signs — is refused
// before it reaches an Authorizer, the agent or a log.
func ValidateTaskID(id string) error {
	if id == "" {
		return errors.New("relay: empty task id")
	}
	if len(id) > maxTaskIDBytes {
		return fmt.Errorf("relay: task id longer than %d bytes", maxTaskIDBytes)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '+' || c == '=':
		default:
			return fmt.Errorf("relay: task id has a byte 0x%02x at %d that is not allowed", c, i)
		}
	}
	return nil
}

// AllowLoopback is an [Authorizer] that allows requests whose peer address
// is a loopback address (127.0.0.0/8, ::1) and refuses the others. It suits a
// relay that listens on loopback for its own user, as `a2a-tail web` does; it
// is no access control behind a reverse proxy on the same host.
func AllowLoopback(r *http.Request, _ string) error {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("relay: only loopback clients are allowed")
}

// AllowAll is an [Authorizer] that allows every request: for a relay behind
// something that already checked access.
func AllowAll(*http.Request, string) error { return nil }

// defaultMaxTaskSet caps a [TaskSet] made with a size < 1: 65 536 ids, at
// most maxTaskIDBytes (256 bytes) each, so at most 16 MiB of ids plus the map's
// overhead (about 100 bytes an id).
const defaultMaxTaskSet = 1 << 16

// A TaskSet is a bounded set of task ids: the tasks a relay may show. It is
// the common answer to the relay's confused-deputy trap: the relay reads
// tasks with its own credentials (its Follower's), so without a policy of
// its own any client that can reach it reads any task the agent lets the
// relay read — including tasks other people created elsewhere. A TaskSet
// holds the tasks started through this relay (give it to [WithStartedTasks])
// and those named to it (Add); its [TaskSet.Authorizer] lets only those be
// read. Past its cap the oldest id leaves first. It is safe for concurrent
// use.
//
// It also owns the conversations (A2A context ids) this relay sends in: a
// browser names a conversation (an AG-UI threadId, a useChat chat id, the
// page's context), and [TaskSet.Conversation] turns that name into a
// context id this relay made. So a browser that names a conversation it
// was never given — someone else's context, created at the agent directly —
// starts a new one instead of continuing theirs (and the client's search for
// a send's orphaned task, which lists a context's tasks, never finds a task
// of theirs).
type TaskSet struct {
	mu    sync.Mutex
	ids   fifo[struct{}]
	convs fifo[string] // a browser's conversation id → the context id sent
}

// fifo is a map of at most max keys; past it the oldest key leaves first.
type fifo[V any] struct {
	max   int
	m     map[string]V
	order []string // keys, oldest first
}

// put sets k to v, making room first when k is new.
func (f *fifo[V]) put(k string, v V) {
	if _, ok := f.m[k]; !ok {
		for len(f.order) >= f.max {
			delete(f.m, f.order[0])
			f.order[0] = ""
			f.order = f.order[1:]
		}
		f.order = append(f.order, k)
	}
	f.m[k] = v
}

// NewTaskSet returns a set that holds up to max ids (max < 1:
// defaultMaxTaskSet), with ids in it.
func NewTaskSet(max int, ids ...string) *TaskSet {
	if max < 1 {
		max = defaultMaxTaskSet
	}
	s := &TaskSet{ids: fifo[struct{}]{max: max, m: map[string]struct{}{}}, convs: fifo[string]{max: max, m: map[string]string{}}}
	for _, id := range ids {
		s.Add(id)
	}
	return s
}

// Add puts id in the set (an id [ValidateTaskID] refuses is not added).
func (s *TaskSet) Add(id string) {
	if ValidateTaskID(id) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids.put(id, struct{}{})
}

// Conversation returns the A2A context id to send a browser's conversation
// id under: the context this set made for id before, id itself when it is
// such a context (a page sends back the context its ops named), and
// otherwise — with create — a new context id, remembered for id ("" without
// create: the conversation is not one of this relay's). The id "" with
// create is a new conversation that has no name yet: its context id is its
// name. Any other id that [ValidateTaskID] refuses gets "". Past the set's
// cap the oldest conversation is forgotten first (a browser that names it
// again starts a new one).
func (s *TaskSet) Conversation(id string, create bool) string {
	if (id != "" || !create) && ValidateTaskID(id) != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs.m[id]; ok {
		return c
	}
	if !create {
		return ""
	}
	c := a2a.NewContextID()
	if id != "" {
		s.convs.put(id, c)
	}
	s.convs.put(c, c)
	return c
}

// has reports whether id is in the set.
func (s *TaskSet) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ids.m[id]
	return ok
}

// Len is the number of ids in the set.
func (s *TaskSet) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids.m)
}

// Authorizer returns an Authorizer that asks next first and then allows a
// task only when it is in the set; a task that is not gets 404 (it does
// not say whether the agent knows it). The task "" — a front end's request
// to start a turn, before any task exists — is next's alone to decide.
func (s *TaskSet) Authorizer(next Authorizer) Authorizer {
	return func(r *http.Request, task string) error {
		if err := next(r, task); err != nil {
			return err
		}
		if task != "" && !s.has(task) {
			return fmt.Errorf("%w: not one started through this relay", ErrNotFound)
		}
		return nil
	}
}
