package fastframe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2apb/v0/pbjson"
	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// The error values of a frame that DecodeV1 and DecodeV03 decline, and of
// a refused streaming call, as a2a-go's transports give them. a2a-go keeps
// its conversions of a JSON-RPC error object and of a google.rpc.Status
// body internal, so they are restated here on its exported values (the
// sentinel errors of package a2a, a2a.ErrorReason, a2a.NewError and its
// With* methods, errordetails.Typed). The differential tests of the client
// (fast path on and off, against the same peer) hold the two to the same
// answer.

// rpcCodes maps a JSON-RPC error code to its A2A error, as a2a-go's
// JSON-RPC transports (1.0 and 0.3) read it; an unknown code is
// a2a.ErrInternalError.
var rpcCodes = map[int]error{
	-32700: a2a.ErrParseError,
	-32600: a2a.ErrInvalidRequest,
	-32601: a2a.ErrMethodNotFound,
	-32602: a2a.ErrInvalidParams,
	-32603: a2a.ErrInternalError,
	-32000: a2a.ErrServerError,
	-32001: a2a.ErrTaskNotFound,
	-32002: a2a.ErrTaskNotCancelable,
	-32003: a2a.ErrPushNotificationNotSupported,
	-32004: a2a.ErrUnsupportedOperation,
	-32005: a2a.ErrUnsupportedContentType,
	-32006: a2a.ErrInvalidAgentResponse,
	-32007: a2a.ErrExtendedCardNotConfigured,
	-32008: a2a.ErrExtensionSupportRequired,
	-32009: a2a.ErrVersionNotSupported,
	-31401: a2a.ErrUnauthenticated,
	-31403: a2a.ErrUnauthorized,
}

// Error is a JSON-RPC error object, under the name of a2a-go's type for
// it (a JSON type error names it).
type Error struct {
	Code    int                   `json:"code"`
	Message string                `json:"message"`
	Data    []*errordetails.Typed `json:"data,omitempty"`
}

func (e *Error) err() error {
	base, ok := rpcCodes[e.Code]
	if !ok {
		base = a2a.ErrInternalError
	}
	msg := e.Message
	if msg == "" {
		msg = base.Error()
	}
	out := a2a.NewError(base, msg)
	var typed []*errordetails.Typed
	first := true
	for _, d := range e.Data {
		if d == nil {
			continue
		}
		if d.TypeURL == errordetails.ErrorInfoType {
			if m, ok := stringMap(d.Value["metadata"]); ok {
				out = out.WithErrorInfoMeta(m)
			}
			continue
		}
		if first {
			out = out.WithDetails(d.Value)
			first = false
		}
		typed = append(typed, d)
	}
	out.TypedDetails = append(out.TypedDetails, typed...)
	return out
}

// stringMap reads an ErrorInfo's metadata: a map of strings, however the
// JSON decoder typed it.
func stringMap(v any) (map[string]string, bool) {
	switch m := v.(type) {
	case map[string]string:
		return m, true
	case map[string]any:
		out := make(map[string]string, len(m))
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out[k] = s
		}
		return out, true
	}
	return nil, false
}

// ErrorBodyJSON is a google.rpc.Status error body, the error of A2A's
// HTTP+JSON binding, under the name of a2a-go's type for it.
type ErrorBodyJSON struct {
	Code    int               `json:"code"`
	Status  string            `json:"status"`
	Message string            `json:"message"`
	Details []json.RawMessage `json:"details"`
}

// sentinels are the A2A errors a google.rpc.Status reason can name.
var sentinels = []error{
	a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrInternalError, a2a.ErrServerError, a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable,
	a2a.ErrPushNotificationNotSupported, a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType,
	a2a.ErrInvalidAgentResponse, a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired,
	a2a.ErrVersionNotSupported, a2a.ErrUnauthenticated, a2a.ErrUnauthorized,
}

func (b *ErrorBodyJSON) err() error {
	var reason string
	var typed []*errordetails.Typed
	meta := map[string]string{}
	details := map[string]any{}
	first := true
	for _, raw := range b.Details {
		var hint struct {
			Type string `json:"@type"`
		}
		if json.Unmarshal(raw, &hint) == nil && hint.Type == errordetails.ErrorInfoType {
			var info struct {
				Reason   string            `json:"reason"`
				Domain   string            `json:"domain"`
				Metadata map[string]string `json:"metadata,omitempty"`
			}
			if json.Unmarshal(raw, &info) != nil || info.Domain != a2a.ProtocolDomain {
				continue
			}
			reason = info.Reason
			maps.Copy(meta, info.Metadata)
			continue
		}
		var extra errordetails.Typed
		if json.Unmarshal(raw, &extra) == nil {
			if first {
				maps.Copy(details, extra.Value)
				first = false
			}
			typed = append(typed, &extra)
		}
	}
	base := a2a.ErrInternalError
	for _, s := range sentinels {
		if a2a.ErrorReason(s) == reason {
			base = s
			break
		}
	}
	out := a2a.NewError(base, b.Message)
	if len(meta) > 0 {
		out = out.WithErrorInfoMeta(meta)
	}
	if len(details) > 0 {
		out = out.WithDetails(details)
	}
	out.TypedDetails = append(out.TypedDetails, typed...)
	return out
}

// HTTPError is the error of a streaming call answered with a status other
// than 200, as a2a-go's transports give it: on JSON-RPC the status alone;
// on HTTP+JSON the google.rpc.Status of an application/json body, or
// a2a.ErrServerError for a body of another type. body is read only on
// HTTP+JSON; the caller bounds it and closes it.
func HTTPError(rpc bool, status, contentType string, body io.Reader) error {
	if rpc {
		return fmt.Errorf("unexpected HTTP status: %s", status)
	}
	if !strings.HasPrefix(contentType, "application/json") {
		return a2a.ErrServerError
	}
	var w struct {
		Error ErrorBodyJSON `json:"error"`
	}
	if err := json.NewDecoder(body).Decode(&w); err != nil {
		return fmt.Errorf("failed to decode error response: %w: %w", err, a2a.ErrParseError)
	}
	return w.Error.err()
}

// ClientResponse is the JSON-RPC response as a2a-go's transports decode it
// when they fail on a frame: the same name, fields and types as its
// internal one, so that a decoding error reads the same.
type ClientResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      string          `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// streamResponse is the HTTP+JSON stream frame as a2a-go's 1.0 transport
// decodes it, under the same name, fields and types.
type streamResponse struct {
	Message        *a2a.Message                 `json:"message,omitempty"`
	Task           *a2a.Task                    `json:"task,omitempty"`
	StatusUpdate   *a2a.TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *a2a.TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
	Error          *ErrorBodyJSON               `json:"error,omitempty"`
}

// errNoEvent: a frame that every decoder declined and in which no error
// was found either; FrameError never returns nil for it.
var errNoEvent = errors.New("fastframe: no event in SSE frame")

// FrameError is the error a2a-go's transport returns for a frame that
// DecodeV1 (v1) or DecodeV03 declined: the peer's own error (a JSON-RPC
// error object, an HTTP+JSON error member) converted as a2a-go converts it,
// or the decoding error a2a-go's types give. It is never nil.
func FrameError(v1, rpc bool, data []byte) error {
	if rpc {
		var resp ClientResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			return fmt.Errorf("failed to parse SSE data: %w", err)
		}
		if resp.Error != nil {
			return resp.Error.err()
		}
		if v1 {
			var sr a2a.StreamResponse
			if err := json.Unmarshal(resp.Result, &sr); err != nil {
				return err
			}
			return errNoEvent
		}
		old, err := legacy.UnmarshalEventJSON(resp.Result)
		if err != nil {
			return err
		}
		if _, err := a2av0.ToV1Event(old); err != nil {
			return err
		}
		return errNoEvent
	}
	if v1 {
		var w streamResponse
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("failed to unmarshal stream response: %w", err)
		}
		n := 0
		for _, present := range []bool{w.Message != nil, w.Task != nil, w.StatusUpdate != nil, w.ArtifactUpdate != nil, w.Error != nil} {
			if present {
				n++
			}
		}
		switch {
		case n == 0:
			return fmt.Errorf("unknown stream response type")
		case n != 1:
			return fmt.Errorf("expected exactly one stream response type, got %d", n)
		case w.Error != nil:
			return w.Error.err()
		}
		return errNoEvent
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) == nil {
		if e, ok := raw["error"]; ok && !bytes.Equal(e, []byte("null")) {
			var b ErrorBodyJSON
			if json.Unmarshal(e, &b) != nil {
				return a2a.ErrInternalError
			}
			return b.err()
		}
	}
	if _, err := pbjson.FromProtoStreamEvent(data); err != nil {
		return fmt.Errorf("failed to unmarshal SSE event: %w", err)
	}
	return errNoEvent
}
