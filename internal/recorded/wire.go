// Package recorded decodes the data of one recorded A2A streaming frame — the
// JSON that follows "data:" in an SSE event — into an a2a.Event, whatever
// the protocol version and transport that produced it:
//
//   - v1.0 JSON-RPC: {"jsonrpc":"2.0","id":..,"result":{"statusUpdate":{..}}}
//   - v1.0 REST:     {"statusUpdate":{..}}
//   - v0.3 JSON-RPC: {"jsonrpc":"2.0","id":..,"result":{"kind":"status-update",..}}
//   - v0.3 REST:     {"statusUpdate":{..}} in the v0.3 proto JSON shape, whose
//     messages hold "content" where v1.0 has "parts"
//
// A JSON-RPC error frame becomes an error. A frame is JSON-RPC when its
// object has a "jsonrpc" member, wherever it stands (the id may come first
// and be long). The version is told from the frame's structure, never from
// its bytes — a part's data or metadata may hold any key, "content" and
// "kind" included:
//
//   - a top-level "kind" discriminator means v0.3 JSON;
//   - a top-level "msg", or a message (the event's, the status's, one in
//     a task's history) with "content" and without "parts", means v0.3
//     REST; a message with "parts", or a top-level "message", means v1.0;
//   - a frame without a message (an artifact update, a bare status) is read
//     as the format this Decoder last saw, v1.0 at first.
//
// A caller that knows better can force a format with [Decoder.Format].
package recorded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"

	"github.com/tfrs/a2a-progress/internal/fastframe"
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

// probe is the structure the format is told from (see the package doc).
type probe struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	Kind    json.RawMessage `json:"kind"`
	Msg     *msgProbe       `json:"msg"`     // v0.3 REST
	Message *msgProbe       `json:"message"` // v1.0
	Status  *struct {
		Status statusProbe `json:"status"`
	} `json:"statusUpdate"`
	Task *struct {
		Status  statusProbe `json:"status"`
		History []msgProbe  `json:"history"`
	} `json:"task"`
}

type statusProbe struct {
	Message *msgProbe `json:"message"`
}

type msgProbe struct {
	Content json.RawMessage `json:"content"`
	Parts   json.RawMessage `json:"parts"`
}

// format is what m says: v0.3 REST, v1.0, or "" when it cannot tell.
func (m *msgProbe) format() Format {
	switch {
	case m == nil:
		return FormatAuto
	case len(m.Parts) > 0 && !bytes.Equal(m.Parts, []byte("null")):
		return FormatV1
	case len(m.Content) > 0 && m.Content[0] == '[':
		return FormatV03ProtoJS
	}
	return FormatAuto
}

// Decoder decodes frames. Its zero value detects the format per frame; the
// last format it told from a message sticks, so that frames without one
// (which look the same in both) are read consistently.
type Decoder struct {
	// Format forces a format; FormatAuto detects it.
	Format Format
	seen   Format
	// rpc and rest: the client's one-pass decoder of A2A 1.0 status
	// updates (internal/fastframe), tried first — a recording is read as
	// a live stream is.
	rpc, rest fastframe.Decoder
}

// Decode decodes one frame's data. It returns the event and the format it
// was read as.
func (d *Decoder) Decode(data []byte) (a2a.Event, Format, error) {
	body := bytes.TrimSpace(data)
	if len(body) == 0 || body[0] != '{' {
		return nil, d.Format, fmt.Errorf("wire: frame is not a JSON object")
	}
	// The frame of nearly every recording: an A2A 1.0 status update whose
	// message (with parts: v1.0, as detect would tell) the client's
	// decoder takes exactly as a2a-go decodes it (FuzzFastVsA2A).
	if d.Format == FormatAuto || d.Format == FormatV1 {
		d.rpc.RPC = true
		ev, ok := d.rpc.Decode(body)
		if !ok {
			ev, ok = d.rest.Decode(body)
		}
		if ok && ev.Status.Message != nil {
			if d.Format == FormatAuto {
				d.seen = FormatV1
			}
			return ev, FormatV1, nil
		}
	}
	// The cheap test first: a frame whose bytes never say "jsonrpc" is not
	// JSON-RPC; one that does is parsed to find out where.
	if bytes.Contains(body, []byte(`"jsonrpc"`)) {
		var f rpcFrame
		if err := json.Unmarshal(body, &f); err != nil {
			return nil, d.Format, fmt.Errorf("wire: JSON-RPC frame: %w", err)
		}
		if f.JSONRPC != "" {
			if f.Error != nil {
				return nil, d.Format, f.Error
			}
			if len(f.Result) == 0 || bytes.Equal(f.Result, []byte("null")) {
				return nil, d.Format, fmt.Errorf("wire: JSON-RPC frame without result or error")
			}
			body = f.Result
		}
	}
	format := d.Format
	told := false
	if format == FormatAuto {
		format, told = d.detect(body)
	}
	ev, err := decodeAs(format, body)
	if err == nil && told {
		d.seen = format
	}
	return ev, format, err
}

// detect tells the format of an unwrapped frame; told reports that the
// frame itself said so (rather than the format last seen).
func (d *Decoder) detect(body []byte) (f Format, told bool) {
	var p probe
	if json.Unmarshal(body, &p) != nil {
		// decodeAs reports the syntax error.
		return d.last(), false
	}
	switch {
	case len(p.Kind) > 0:
		return FormatV03JSON, true
	case p.Msg != nil:
		return FormatV03ProtoJS, true
	case p.Message != nil:
		return FormatV1, true
	}
	var msgs []*msgProbe
	if p.Status != nil {
		msgs = append(msgs, p.Status.Status.Message)
	}
	if p.Task != nil {
		msgs = append(msgs, p.Task.Status.Message)
		for i := range p.Task.History {
			msgs = append(msgs, &p.Task.History[i])
		}
	}
	for _, m := range msgs {
		if f := m.format(); f != FormatAuto {
			return f, true
		}
	}
	return d.last(), false
}

func (d *Decoder) last() Format {
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
