package frontend

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// The front-end encoders build each event as a small map (map[string]any:
// the field names read as the protocols spell them). encoding/json marshals
// a map by reflection and sorts its keys through an allocation per key,
// which was half the cost of a live op; appendJSON writes the same bytes —
// sorted keys, strings escaped as encoding/json escapes them — for the
// types the encoders use, and leaves any other value to encoding/json.

// appendJSON appends the JSON form of v to dst.
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return jsonstr.AppendQuoted(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case map[string]any:
		return appendJSONObject(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendJSON(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case []string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonstr.AppendQuoted(dst, e)
		}
		return append(dst, ']'), nil
	case rawJSON:
		return append(dst, x...), nil
	case json.RawMessage:
		if x == nil {
			return append(dst, "null"...), nil
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// rawJSON is JSON the encoders wrote themselves (valid and compact), which
// appendJSON copies as it is.
type rawJSON []byte

// MarshalJSON makes encoding/json copy it too.
func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

// appendJSONObject appends m with its keys in sorted order.
func appendJSONObject(dst []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	var buf [12]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonstr.AppendQuoted(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendJSON(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}
