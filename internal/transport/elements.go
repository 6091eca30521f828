package transport

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// countingCodec is gRPC's proto codec with a bound on what a received
// message may build: its elements (Bounds.Elements) are counted on the
// wire, walking the message's descriptor, before it is unmarshalled. Over
// the bound the message is refused with an error gRPC reports as
// "…received message larger than max…", the words of its own byte bound,
// so that a stream's event is refused as over the event bound and a unary
// answer as over the response bound (GRPCTooLarge): the client handles
// both already.
type countingCodec struct{ max int }

// maxDepth is proto's own bound on nesting: deeper, the count stops and
// proto.Unmarshal refuses the message.
const maxDepth = 10000

func (countingCodec) Name() string { return "proto" }

func (countingCodec) Marshal(v any) (mem.BufferSlice, error) {
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (c countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok || c.max <= 0 {
		return encoding.GetCodecV2("proto").Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	left := c.max
	if !countElements(b, m.ProtoReflect().Descriptor(), &left, 0) {
		return fmt.Errorf("received message larger than max: over %d protobuf elements (parts, values, messages) in %d bytes", c.max, len(b))
	}
	return proto.Unmarshal(b, m)
}

// countElements takes the length-delimited fields of b, a message of type
// md, from *left, recursing into nested messages; false when *left went
// below zero. Malformed wire data ends the count with true: proto.Unmarshal
// says what is wrong with it.
func countElements(b []byte, md protoreflect.MessageDescriptor, left *int, depth int) bool {
	if depth > maxDepth {
		return true
	}
	fields := md.Fields()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return true
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return true
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return true
		}
		b = b[n:]
		if *left--; *left < 0 {
			return false
		}
		if fd := fields.ByNumber(num); fd != nil && fd.Message() != nil && !fd.IsPacked() {
			if !countElements(v, fd.Message(), left, depth+1) {
				return false
			}
		}
	}
	return true
}
