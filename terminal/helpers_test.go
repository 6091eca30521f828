package terminal

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	taskID = a2a.TaskID("task-1")
	ctxID  = "ctx-1"
)

// agentMsg is an agent message with one text part per text.
func agentMsg(texts ...string) *a2a.Message {
	m := &a2a.Message{ID: "m-" + strings.Join(texts, ""), Role: a2a.MessageRoleAgent, TaskID: taskID, ContextID: ctxID}
	for _, t := range texts {
		m.Parts = append(m.Parts, a2a.NewTextPart(t))
	}
	return m
}

// status is a status update of taskID; a nil msg means no status message.
func status(state a2a.TaskState, msg *a2a.Message) *a2a.TaskStatusUpdateEvent {
	return &a2a.TaskStatusUpdateEvent{TaskID: taskID, ContextID: ctxID, Status: a2a.TaskStatus{State: state, Message: msg}}
}

// statusText is a status update with an agent message of one text part.
func statusText(state a2a.TaskState, text string) *a2a.TaskStatusUpdateEvent {
	return status(state, agentMsg(text))
}

// artifact is an artifact update of taskID with one text part per text.
func artifact(id a2a.ArtifactID, appendParts, lastChunk bool, texts ...string) *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{TaskID: taskID, ContextID: ctxID, Append: appendParts, LastChunk: lastChunk,
		Artifact: art(id, texts...)}
}

// art is an artifact with one text part per text.
func art(id a2a.ArtifactID, texts ...string) *a2a.Artifact {
	a := &a2a.Artifact{ID: id}
	for _, t := range texts {
		a.Parts = append(a.Parts, a2a.NewTextPart(t))
	}
	return a
}

// snapshot is a Task of taskID.
func snapshot(state a2a.TaskState, msg *a2a.Message, arts ...*a2a.Artifact) *a2a.Task {
	return &a2a.Task{ID: taskID, ContextID: ctxID, Status: a2a.TaskStatus{State: state, Message: msg}, Artifacts: arts}
}

func observeAll(t *Tracker, evs ...a2a.Event) []Observation {
	var obs []Observation
	for _, ev := range evs {
		obs = append(obs, t.Observe(ev))
	}
	return obs
}
