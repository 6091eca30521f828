package projection

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/terminal"
)

// QueryKind says what an untyped /v1/query data: frame is.
type QueryKind int

// The kinds of /v1/query frames.
const (
	// QueryBusiness: a chunk of the reply (anything that is not one of the
	// two shapes below).
	QueryBusiness QueryKind = iota + 1
	// QueryProjection: {"content": "<PHASE>", "projection": {"kind":
	// "remote_agent_invocation", …}} — progress.
	QueryProjection
	// QueryInterrupt: {"message": "…", "items": [{toolCallId, toolName,
	// message}, …]} — the turn ends waiting for input.
	QueryInterrupt
)

// QueryFrame is one classified /v1/query frame.
type QueryFrame struct {
	Kind QueryKind
	// Content is the "content" string of a projection or business frame
	// ("" when absent or not a string).
	Content string
	// HasContent reports that the frame had a "content" string.
	HasContent bool
	// Projection is the "projection" object of a projection frame, as
	// decoded (Parse validates it).
	Projection map[string]any
	// Object is the whole frame when it is a JSON object.
	Object map[string]any
	// Data is the frame's data as received.
	Data []byte
}

// ClassifyQuery tells a /v1/query frame apart by its shape — the runtime
// drops the chunk type when it serialises (QuerySseSupport.payload), so
// the shape is all there is:
//
//   - a JSON object whose "projection" is an object with kind
//     "remote_agent_invocation" is a projection frame (its other fields
//     are checked later, by Parse: a malformed one is a diagnostic, not
//     business output);
//   - a JSON object whose "items" is an array and whose "message" is a
//     string (and that is no projection frame) is the interrupt frame;
//   - anything else — other objects, other JSON, text that is not JSON —
//     is a business chunk.
func ClassifyQuery(data []byte) QueryFrame {
	f := QueryFrame{Kind: QueryBusiness, Data: data}
	var obj map[string]any
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return f
	}
	f.Object = obj
	f.Content, f.HasContent = obj["content"].(string)
	if p, ok := obj["projection"].(map[string]any); ok && p["kind"] == Kind {
		f.Kind, f.Projection = QueryProjection, p
		return f
	}
	_, items := obj["items"].([]any)
	_, msg := obj["message"].(string)
	if items && msg {
		f.Kind = QueryInterrupt
	}
	return f
}

// ReplyArtifactID is the artifact that collects the business chunks of a
// /v1/query stream.
const ReplyArtifactID = "reply"

// QueryEvents frames a /v1/query SSE body (through internal/ssewire) and
// translates each frame into the A2A event the runtime's own A2A exit
// sends for the same chunk (PROTOCOL.md §5.3), on task and context
// conversationID:
//
//   - a projection frame: an artifact update ("projection-<n>") whose one
//     text part is the content with metadata {"_remote_invocation":
//     projection} — which [FromArtifact] claims as progress;
//   - the interrupt frame: an input-required status update whose message
//     has the text of "message" and metadata {"_interrupt": frame} — which
//     package terminal reads as the Interrupt and its items;
//   - a business chunk: an artifact update of [ReplyArtifactID], created by
//     the first chunk and appended to by the next ones: one text part per
//     chunk (its "content", or the frame's data when it has none and is not
//     a JSON object), or a data part (an object without "content");
//   - the clean end of the body: a completed status update — the plain
//     stream has no other end signal — whose message (id "reply") holds the
//     text parts of the reply artifact joined without a separator, as the
//     deltas of a streamed reply are (no message when there is no text).
//
// A framing error (a truncated last frame, an event over the cap, a read
// error — context.Canceled included, which ssewire reports as such) ends the sequence with that error: the turn did not end. The body
// is read lazily and not closed.
func QueryEvents(body io.Reader, conversationID string) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		task := a2a.TaskID(conversationID)
		fr := ssewire.NewStrictReader(body, ssewire.DefaultMaxEventBytes)
		projections, chunks := 0, 0
		var reply strings.Builder
		for n := 1; ; n++ {
			ev, err := fr.NextEvent()
			if errors.Is(err, io.EOF) {
				end := &a2a.TaskStatusUpdateEvent{TaskID: task, ContextID: conversationID,
					Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}
				if reply.Len() > 0 {
					end.Status.Message = &a2a.Message{ID: ReplyArtifactID, Role: a2a.MessageRoleAgent, TaskID: task,
						ContextID: conversationID, Parts: a2a.ContentParts{a2a.NewTextPart(reply.String())}}
				}
				yield(end, nil)
				return
			}
			if err != nil {
				yield(nil, fmt.Errorf("projection: /v1/query frame %d: %w", n, err))
				return
			}
			if !ev.HasData {
				continue
			}
			var out a2a.Event
			switch f := ClassifyQuery(ev.Data); f.Kind {
			case QueryProjection:
				projections++
				p := a2a.NewTextPart(f.Content)
				p.Metadata = map[string]any{MetadataKey: f.Projection}
				out = &a2a.TaskArtifactUpdateEvent{TaskID: task, ContextID: conversationID,
					Artifact: &a2a.Artifact{ID: a2a.ArtifactID("projection-" + strconv.Itoa(projections)), Parts: a2a.ContentParts{p}}}
			case QueryInterrupt:
				msg := &a2a.Message{ID: "interrupt-" + strconv.Itoa(n), Role: a2a.MessageRoleAgent, TaskID: task, ContextID: conversationID,
					Parts:    a2a.ContentParts{a2a.NewTextPart(f.Object["message"].(string))},
					Metadata: map[string]any{terminal.InterruptMetadataKey: f.Object}}
				out = &a2a.TaskStatusUpdateEvent{TaskID: task, ContextID: conversationID,
					Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: msg}}
			default:
				chunks++
				var p *a2a.Part
				switch {
				case f.HasContent:
					p = a2a.NewTextPart(f.Content)
				case f.Object != nil:
					p = a2a.NewDataPart(f.Object)
				default:
					p = a2a.NewTextPart(string(ev.Data))
				}
				reply.WriteString(p.Text())
				out = &a2a.TaskArtifactUpdateEvent{TaskID: task, ContextID: conversationID, Append: chunks > 1,
					Artifact: &a2a.Artifact{ID: ReplyArtifactID, Parts: a2a.ContentParts{p}}}
			}
			if !yield(out, nil) {
				return
			}
		}
	}
}
