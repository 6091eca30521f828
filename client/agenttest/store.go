package agenttest

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// boundedStore trims Task.history on every update to the first message (the
// user's) and the last keep messages. a2asrv's task manager keeps the very
// task it passes to Update as its own state, so trimming in place also
// bounds the deep copies it makes per event.
type boundedStore struct {
	taskstore.Store
	keep int
}

// Update implements taskstore.Store.
func (b boundedStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	if t := req.Task; t != nil && len(t.History) > b.keep+1 {
		h := make([]*a2a.Message, 0, b.keep+1)
		h = append(h, t.History[0])
		h = append(h, t.History[len(t.History)-b.keep:]...)
		t.History = h
	}
	return b.Store.Update(ctx, req)
}
