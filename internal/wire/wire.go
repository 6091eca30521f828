// Package wire decodes the data of one recorded A2A streaming frame — the
// JSON that follows "data:" in an SSE event — into an a2a.Event, whatever
// the protocol version and transport that produced it:
//
//   - v1.0 JSON-RPC: {"jsonrpc":"2.0","id":..,"result":{"statusUpdate":{..}}}
//   - v1.0 REST:     {"statusUpdate":{..}}
//   - v0.3 JSON-RPC: {"jsonrpc":"2.0","id":..,"result":{"kind":"status-update",..}}
//   - v0.3 REST:     {"statusUpdate":{..}} in the v0.3 proto JSON shape, whose
//     messages hold "content" where v1.0 has "parts"
//
// A JSON-RPC error frame becomes an error. The version is told from the
// frame itself: a "kind" discriminator means v0.3 JSON; a message with a
// "content" array means v0.3 REST; anything else is read as v1.0. A caller
// that knows better can force a format with [Decoder.Format].
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"
)

// Format is the wire format of a frame.
type Format string

// The formats.
const (
	FormatAuto       Format = ""
	FormatV1         Format = "v1.0"
	FormatV03JSON    Format = "v0.3-jsonrpc"
	FormatV03ProtoJS Format = "v0.3-rest"
)

// ErrRPC is matched (errors.Is) by the error of a JSON-RPC error frame.
var ErrRPC = errors.New("wire: JSON-RPC error frame")

// RPCError is a JSON-RPC error frame.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("wire: JSON-RPC error %d: %s", e.Code, e.Message)
}

// Is makes errors.Is(err, ErrRPC) true.
func (e *RPCError) Is(target error) bool { return target == ErrRPC }

type rpcFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

type kindProbe struct {
	Kind *string `json:"kind"`
}

// Decoder decodes frames. Its zero value detects the format per frame; once
// a v0.3 format has been seen it sticks, so that frames without a message
// (which look the same in both) are read consistently.
type Decoder struct {
	// Format forces a format; FormatAuto detects it.
	Format Format
	seen   Format
}

// Decode decodes one frame's data. It returns the event and the format it
// was read as.
func (d *Decoder) Decode(data []byte) (a2a.Event, Format, error) {
	body := bytes.TrimSpace(data)
	if len(body) == 0 || body[0] != '{' {
		return nil, d.Format, fmt.Errorf("wire: frame is not a JSON object")
	}
	if bytes.Contains(body[:min(len(body), 64)], []byte(`"jsonrpc"`)) || bytes.HasPrefix(body, []byte(`{"jsonrpc"`)) {
		var f rpcFrame
		if err := json.Unmarshal(body, &f); err != nil {
			return nil, d.Format, fmt.Errorf("wire: JSON-RPC frame: %w", err)
		}
		if f.JSONRPC != "" {
			if f.Error != nil {
				return nil, d.Format, f.Error
			}
			if len(f.Result) == 0 {
				return nil, d.Format, fmt.Errorf("wire: JSON-RPC frame without result or error")
			}
			body = f.Result
		}
	}
	format := d.Format
	if format == FormatAuto {
		format = d.detect(body)
	}
	ev, err := decodeAs(format, body)
	if err == nil && d.Format == FormatAuto && format != FormatV1 {
		d.seen = format
	}
	return ev, format, err
}

func (d *Decoder) detect(body []byte) Format {
	var p kindProbe
	if json.Unmarshal(body, &p) == nil && p.Kind != nil {
		return FormatV03JSON
	}
	// An unescaped `"content":[` can only be a key: inside a JSON string the
	// quotes would be escaped.
	if bytes.Contains(body, []byte(`"content":[`)) {
		return FormatV03ProtoJS
	}
	if d.seen != "" {
		return d.seen
	}
	return FormatV1
}

func decodeAs(f Format, body []byte) (a2a.Event, error) {
	switch f {
	case FormatV03JSON:
		ev, err := legacy.UnmarshalEventJSON(body)
		if err != nil {
			return nil, fmt.Errorf("wire: v0.3 event: %w", err)
		}
		v1, err := a2av0.ToV1Event(ev)
		if err != nil {
			return nil, fmt.Errorf("wire: v0.3 event: %w", err)
		}
		return v1, nil
	case FormatV03ProtoJS:
		ev, err := pbjson.FromProtoStreamEvent(body)
		if err != nil {
			return nil, fmt.Errorf("wire: v0.3 REST event: %w", err)
		}
		return ev, nil
	default:
		var sr a2a.StreamResponse
		if err := json.Unmarshal(body, &sr); err != nil {
			return nil, fmt.Errorf("wire: v1.0 event: %w", err)
		}
		return sr.Event, nil
	}
}
