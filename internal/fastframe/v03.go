package fastframe

import (
	"bytes"
	"encoding/json"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"
)

// rpcResponse is the JSON-RPC response as a2a-go's transports read it
// (field names and types of its internal jsonrpc.ClientResponse). The error
// is kept raw: a frame with one is declined, and FrameError gives its
// error.
type rpcResponse struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      string           `json:"id"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *json.RawMessage `json:"error,omitempty"`
}

// DecodeV03 decodes an A2A 0.3 frame with the exported functions a2a-go's
// 0.3 transports call on it, in their order: on JSON-RPC the response,
// then a2a.UnmarshalEventJSON of the 0.3 module and a2av0.ToV1Event; on
// HTTP+JSON the check for an error member, then pbjson.FromProtoStreamEvent.
// It declines (ok false) every frame on which a2a-go would return an
// error — an error frame, a failed decode — and FrameError then gives
// the error a2a-go would. There is no one-pass decoder
// for 0.3: what this saves is the transport's per-stream 64 KiB line
// buffer, not the decoding.
func DecodeV03(rpc bool, data []byte) (a2a.Event, bool) {
	if !rpc {
		var raw map[string]json.RawMessage
		if json.Unmarshal(data, &raw) == nil {
			if e, ok := raw["error"]; ok && !bytes.Equal(e, []byte("null")) {
				return nil, false
			}
		}
		ev, err := pbjson.FromProtoStreamEvent(data)
		if err != nil {
			return nil, false
		}
		return ev, true
	}
	var resp rpcResponse
	if json.Unmarshal(data, &resp) != nil || resp.Error != nil {
		return nil, false
	}
	old, err := legacy.UnmarshalEventJSON(resp.Result)
	if err != nil {
		return nil, false
	}
	ev, err := a2av0.ToV1Event(old)
	if err != nil {
		return nil, false
	}
	return ev, true
}
