package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/tfrs/a2a-progress/internal/transport"
)

// Cancel asks the agent to cancel a task (CancelTask) and returns the
// task as the agent reported it — canceled, or still on its way there if
// the agent cancels asynchronously. A stream following the task sees the
// canceled state and ends with its verdict ([terminal.ErrCanceled]).
//
// The errors wrap a2a-go's: [a2a.ErrTaskNotFound] for a task the agent
// does not know (including a REST 404 whose body a2a-go cannot read),
// [a2a.ErrTaskNotCancelable] for one that has already settled. The call is
// bounded like GetTask (the idle timeout, and a whole-request timeout
// removed from the caller's http.Client).
func (c *Client) Cancel(ctx context.Context, taskID a2a.TaskID) (*a2a.Task, error) {
	if taskID == "" {
		return nil, errors.New("client: cancel: empty task id")
	}
	ctx, cancel := c.unaryCtx(ctx)
	defer cancel()
	ctx, slot := transport.WithStatus(ctx)
	task, err := c.a2a.CancelTask(ctx, &a2a.CancelTaskRequest{ID: taskID, Tenant: c.cfg.tenant})
	if err != nil {
		return nil, fmt.Errorf("client: cancel: task %q: %w", taskID, transport.TaskCallErr(err, slot))
	}
	return task, nil
}
