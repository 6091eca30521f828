package fastframe

import (
	"encoding/json"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// restResponse is the REST stream frame as a2a-go's REST transport reads
// it (field names, tags and types of its internal rest.streamResponse),
// with the error kept raw: a frame with one is declined, and FrameError
// gives its error.
type restResponse struct {
	Message        *a2a.Message                 `json:"message,omitempty"`
	Task           *a2a.Task                    `json:"task,omitempty"`
	StatusUpdate   *a2a.TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *a2a.TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
	Error          *json.RawMessage             `json:"error,omitempty"`
}

// DecodeV1 decodes an A2A 1.0 frame of any kind the way a2a-go's 1.0
// transports do, with the same types and unmarshalling: on JSON-RPC the
// response, then a2a.StreamResponse of its result; on HTTP+JSON one
// unmarshal into the four event members. It is the path for the frames
// the Decoder declines — snapshots, artifact updates, messages, unusual
// shapes — and itself declines (ok false) every frame on which a2a-go
// would return an error, error frames first; FrameError then gives the
// error a2a-go would.
func DecodeV1(rpc bool, data []byte) (a2a.Event, bool) {
	if rpc {
		var resp rpcResponse
		if json.Unmarshal(data, &resp) != nil || resp.Error != nil {
			return nil, false
		}
		var sr a2a.StreamResponse
		if json.Unmarshal(resp.Result, &sr) != nil {
			return nil, false
		}
		return sr.Event, true
	}
	var w restResponse
	if json.Unmarshal(data, &w) != nil || w.Error != nil {
		return nil, false
	}
	var ev a2a.Event
	n := 0
	if w.Message != nil {
		ev, n = w.Message, n+1
	}
	if w.Task != nil {
		ev, n = w.Task, n+1
	}
	if w.StatusUpdate != nil {
		ev, n = w.StatusUpdate, n+1
	}
	if w.ArtifactUpdate != nil {
		ev, n = w.ArtifactUpdate, n+1
	}
	if n != 1 {
		return nil, false
	}
	return ev, true
}
