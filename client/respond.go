package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// Respond starts a new turn on an existing task — typically one that
// waits for input (input-required) or for credentials (auth-required) —
// with a user message of one text part, and returns the turn's stream
// exactly as [Client.Send] does: the task id is known when Respond
// returns, the message is sent once, a cut is resumed on the task.
//
// The message carries the task id and the task's context id, which Respond
// looks up first with GetTask (without history); a task the agent does
// not know fails there with an error matching [a2a.ErrTaskNotFound], and
// nothing is sent. Whether the task takes another turn is the agent's
// decision: a settled task is usually refused, which the stream reports as
// its error. A caller that knows the context id can Send a message with
// both ids itself and save the lookup.
func (c *Client) Respond(ctx context.Context, taskID a2a.TaskID, text string) (*Stream, error) {
	if taskID == "" {
		return nil, errors.New("client: respond: empty task id")
	}
	contextID, err := c.taskContext(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("client: respond: task %q: %w", taskID, err)
	}
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.TaskID, m.ContextID = taskID, contextID
	return c.Send(ctx, m)
}

// taskContext returns the context id of a task, with one GetTask that
// asks for no history.
func (c *Client) taskContext(ctx context.Context, taskID a2a.TaskID) (string, error) {
	ctx, cancel := c.unaryCtx(ctx)
	defer cancel()
	ctx, slot := transport.WithStatus(ctx)
	none := 0
	task, err := c.a2a.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID, HistoryLength: &none, Tenant: c.cfg.tenant})
	if err != nil {
		return "", transport.TaskCallErr(err, slot)
	}
	return task.ContextID, nil
}
