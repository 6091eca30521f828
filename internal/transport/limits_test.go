package transport

import (
	"errors"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// A unary answer is bounded whatever it looks like: newlines and blank
// lines do not reset its count.
func TestBoundedBodyUnary(t *testing.T) {
	t.Parallel()
	b := Bounds{Response: 100}
	for _, tc := range []struct {
		size int
		over bool
	}{{100, false}, {101, true}, {10000, true}} {
		body := strings.Repeat("data: x\n\n", tc.size/9+1)[:tc.size]
		got, err := io.ReadAll(newBoundedBody(io.NopCloser(strings.NewReader(body)), nil, false, b))
		if errors.Is(err, ErrResponseTooLarge) != tc.over {
			t.Fatalf("size %d: err = %v, want over: %v", tc.size, err, tc.over)
		}
		if len(got) > 101 {
			t.Fatalf("size %d: read %d bytes past the bound", tc.size, len(got))
		}
		if tc.over {
			// The refusal sticks: a reader that tries again gets it again.
			body := newBoundedBody(io.NopCloser(strings.NewReader(body)), nil, false, b)
			_, _ = io.ReadAll(body)
			if n, err := body.Read(make([]byte, 10)); n != 0 || !errors.Is(err, ErrResponseTooLarge) {
				t.Fatalf("read after the refusal: %d, %v", n, err)
			}
		}
	}
}
