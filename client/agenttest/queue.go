package agenttest

import (
	"context"
	"errors"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/eventqueue"
)

// queueManager wraps a2asrv's in-memory event queue manager and remembers
// every task it made a queue for, so that Close can destroy them all.
//
// Why: a SubscribeToTask that arrives while a2asrv tears a finished
// execution down (it destroys the task's queue before it unregisters the
// execution) makes the manager create a fresh broker for the task, whose
// goroutine nothing ever destroys. Destroying every known task at Close
// keeps the server goleak-clean.
type queueManager struct {
	eventqueue.Manager

	mu    sync.Mutex
	tasks map[a2a.TaskID]struct{}
}

func newQueueManager() *queueManager {
	return &queueManager{Manager: eventqueue.NewInMemoryManager(), tasks: make(map[a2a.TaskID]struct{})}
}

func (m *queueManager) note(id a2a.TaskID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks[id] = struct{}{}
}

// CreateReader implements eventqueue.Manager.
func (m *queueManager) CreateReader(ctx context.Context, id a2a.TaskID) (eventqueue.Reader, error) {
	m.note(id)
	return m.Manager.CreateReader(ctx, id)
}

// CreateWriter implements eventqueue.Manager.
func (m *queueManager) CreateWriter(ctx context.Context, id a2a.TaskID) (eventqueue.Writer, error) {
	m.note(id)
	return m.Manager.CreateWriter(ctx, id)
}

// destroyAll destroys the queue of every task seen (a no-op for the ones
// a2asrv already destroyed).
func (m *queueManager) destroyAll(ctx context.Context) error {
	m.mu.Lock()
	ids := make([]a2a.TaskID, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	clear(m.tasks)
	m.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, m.Manager.Destroy(ctx, id))
	}
	return errors.Join(errs...)
}
