package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// The encoder of a block op, by appending: a2a-tail writes one line per op
// (issue #32), and encoding/json spent most of that line's time in
// reflection, in compacting the payload it had just marshalled, and in
// formatting the at. It writes exactly the bytes json.Marshal wrote for the
// wire structs (blockJSON, opHeadJSON): the same keys in the same order,
// the same omissions, and encoding/json's string escaping, HTML included
// (TestOpEncoderMatchesEncodingJSON and FuzzOpEncoder compare the two).

// appendOp appends the JSON form of the block or seal op o (see [Op]); a
// result op, one per turn, goes through encoding/json (Op.MarshalJSON).
func appendOp(dst []byte, o *Op) ([]byte, error) {
	dst = append(dst, `{"type":`...)
	dst = jsonstr.AppendQuoted(dst, string(o.Type))
	dst = append(dst, `,"task":`...)
	dst = jsonstr.AppendQuoted(dst, o.Task)
	dst = append(dst, `,"turn":`...)
	dst = jsonstr.AppendQuoted(dst, o.Turn)
	if o.Type == OpBlock {
		at := o.Block.At
		if !o.At.IsZero() {
			at = o.At
		}
		var err error
		dst = append(dst, ',')
		if dst, err = appendBlockFields(dst, &o.Block, at); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendBlockFields appends the members of blockJSON for b, with the at
// at, without braces.
func appendBlockFields(dst []byte, b *Block, at time.Time) ([]byte, error) {
	dst = append(dst, `"streamKey":`...)
	dst = jsonstr.AppendQuoted(dst, b.Key.StreamKey)
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, b.Key.Seq, 10)
	dst = append(dst, `,"id":`...)
	dst = jsonstr.AppendQuoted(dst, b.Key.ID)
	dst = append(dst, `,"kind":`...)
	dst = jsonstr.AppendQuoted(dst, string(b.Kind))
	dst = append(dst, `,"status":`...)
	dst = jsonstr.AppendQuoted(dst, string(b.Status))
	dst = append(dst, `,"payload":`...)
	var err error
	if dst, err = appendPayload(dst, b.Payload); err != nil {
		return nil, err
	}
	dst = append(dst, `,"source":`...)
	dst = jsonstr.AppendQuoted(dst, string(b.Source))
	if b.Reason != "" {
		dst = append(dst, `,"reason":`...)
		dst = jsonstr.AppendQuoted(dst, string(b.Reason))
	}
	if b.OverSoftLimit {
		dst = append(dst, `,"overSoftLimit":true`...)
	}
	if b.Parent != "" {
		dst = append(dst, `,"parent":`...)
		dst = jsonstr.AppendQuoted(dst, b.Parent)
	}
	if b.Truncated != 0 {
		dst = append(dst, `,"truncated":`...)
		dst = strconv.AppendInt(dst, b.Truncated, 10)
	}
	if b.Anchored {
		dst = append(dst, `,"after":`...)
		dst = strconv.AppendInt(dst, b.After, 10)
	}
	if b.Ordinal != 0 {
		dst = append(dst, `,"ordinal":`...)
		dst = strconv.AppendInt(dst, b.Ordinal, 10)
	}
	if !at.IsZero() {
		dst = append(dst, `,"at":"`...)
		dst = appendAt(dst, at)
		dst = append(dst, '"')
	}
	return dst, nil
}

// appendPayload appends p as encoding/json writes it. The envelope's
// payload types, by value or by pointer, are written here; any other type
// (one that embeds a payload type) goes through encoding/json, whose
// output is already compact.
func appendPayload(dst []byte, p envelope.Payload) ([]byte, error) {
	switch v := p.(type) {
	case nil:
		return append(dst, "null"...), nil
	case envelope.Text:
		return appendOneString(dst, `{"text":`, v.Text), nil
	case envelope.Thinking:
		return appendOneString(dst, `{"text":`, v.Text), nil
	case envelope.ErrorPayload:
		return appendOneString(dst, `{"message":`, v.Message), nil
	case envelope.ToolCall:
		dst = append(dst, `{"tool":`...)
		dst = jsonstr.AppendQuoted(dst, v.Tool)
		if v.ToolCallID != "" {
			dst = append(dst, `,"tool_call_id":`...)
			dst = jsonstr.AppendQuoted(dst, v.ToolCallID)
		}
		return append(dst, '}'), nil
	case envelope.ToolOutputAppend:
		dst = append(dst, `{"tool":`...)
		dst = jsonstr.AppendQuoted(dst, v.Tool)
		dst = append(dst, `,"chunk":`...)
		dst = jsonstr.AppendQuoted(dst, v.Chunk)
		if v.ToolCallID != "" {
			dst = append(dst, `,"tool_call_id":`...)
			dst = jsonstr.AppendQuoted(dst, v.ToolCallID)
		}
		return append(dst, '}'), nil
	case *envelope.Text:
		if v != nil {
			return appendPayload(dst, *v)
		}
	case *envelope.Thinking:
		if v != nil {
			return appendPayload(dst, *v)
		}
	case *envelope.ErrorPayload:
		if v != nil {
			return appendPayload(dst, *v)
		}
	case *envelope.ToolCall:
		if v != nil {
			return appendPayload(dst, *v)
		}
	case *envelope.ToolOutputAppend:
		if v != nil {
			return appendPayload(dst, *v)
		}
	default:
		b, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("schema: payload: %w", err)
		}
		return append(dst, b...), nil
	}
	return append(dst, "null"...), nil // a nil pointer
}

// appendOneString appends an object of one string member, open being
// `{"name":`.
func appendOneString(dst []byte, open, s string) []byte {
	dst = append(dst, open...)
	dst = jsonstr.AppendQuoted(dst, s)
	return append(dst, '}')
}

// appendAt appends formatAt(t), t not zero, without the quotes: the
// digits of atLayout written directly, which time.Format spends most of
// an op's at on parsing the layout.
func appendAt(dst []byte, t time.Time) []byte {
	t = t.UTC()
	switch {
	case t.Year() < 0:
		t = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	case t.Year() > 9999:
		t = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	}
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, sec, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, t.Nanosecond(), 9)
	return append(dst, 'Z')
}

// appendDigits appends the n low decimal digits of v ≥ 0, zero-padded.
func appendDigits(dst []byte, v, n int) []byte {
	dst = append(dst, "000000000"[:n]...)
	for i := len(dst) - 1; n > 0; i, n = i-1, n-1 {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

// encodeSize is a guess at the size of b's JSON form, so that one
// allocation holds it (an op's fixed part and its at take about 200 bytes).
func encodeSize(b *Block) int {
	n := 256 + len(b.Key.StreamKey) + len(b.Key.ID) + len(b.Parent)
	switch p := b.Payload.(type) {
	case envelope.Text:
		n += len(p.Text)
	case envelope.Thinking:
		n += len(p.Text)
	case envelope.ToolOutputAppend:
		n += len(p.Chunk) + len(p.Tool) + len(p.ToolCallID)
	case envelope.ToolCall:
		n += len(p.Tool) + len(p.ToolCallID)
	case envelope.ErrorPayload:
		n += len(p.Message)
	}
	return n
}
