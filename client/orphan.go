package client

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// errNoOrphan is the cause when ListTasks named no task of our message.
var errNoOrphan = errors.New("ListTasks named no task created by the message")

// orphan handles a send whose stream failed before its first event, for
// a reason other than the agent's refusal: the agent may have created the
// task and be running it. The message is never sent again. When the agent
// responds to ListTasks, the task our message created is looked up — by the
// message's context id (set by [Client.Send] when the caller gave none, so
// that it names our message's tasks only) and our client-generated message
// id in its history — and the turn resumes on it like any cut turn.
// Otherwise the error says that the task may exist and how to find it.
func (s *Stream) orphan(cause error, emit emitFunc) error {
	m := s.req.Message
	if m.TaskID != "" {
		// A message to an existing task: that task's state is still the
		// previous turn's (see drive).
		return &IncompleteError{TaskID: s.TaskID(), Err: cause}
	}
	task, err := s.findOrphan(m)
	if err != nil {
		s.c.cfg.logger.LogAttrs(s.ctx, slog.LevelDebug, "a2a send cut before its first event; its task was not found",
			slog.String("message", m.ID), slog.String("context", m.ContextID), slog.String("error", logText(err)))
		return &IncompleteError{MessageID: m.ID, ContextID: m.ContextID, Err: cause, lookup: err}
	}
	s.mu.Lock()
	s.taskID = task.ID
	s.mu.Unlock()
	s.c.cfg.logger.LogAttrs(s.ctx, slog.LevelInfo, "a2a send cut before its first event; resuming the task it created",
		slog.String("task", string(task.ID)), slog.String("message", m.ID))
	return s.resume(cause, emit)
}

// findOrphan asks ListTasks for the tasks of the message's context and
// returns the one whose history holds the message.
func (s *Stream) findOrphan(m *a2a.Message) (*a2a.Task, error) {
	if m.ContextID == "" {
		return nil, errors.New("the message has no context id to look for")
	}
	ctx, cancel := s.c.unaryCtx(s.ctx)
	defer cancel()
	res, err := s.c.a2a.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: m.ContextID, Tenant: s.c.cfg.tenant, PageSize: 100})
	if err != nil {
		return nil, fmt.Errorf("ListTasks: %w", transport.IdleCause(ctx, err))
	}
	for _, t := range res.Tasks {
		if t == nil || t.ID == "" {
			continue
		}
		if t.Status.Message != nil && t.Status.Message.ID == m.ID {
			return t, nil
		}
		for _, h := range t.History {
			if h != nil && h.ID == m.ID {
				return t, nil
			}
		}
	}
	return nil, errNoOrphan
}
