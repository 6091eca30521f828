package transport

import (
	"errors"
	"fmt"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// gRPC's refusal of an oversize answer, as a2a-go hands it on (an a2a
// error keeping only the status message), matches ErrResponseTooLarge and
// keeps its text; any other error is left as it is.
func TestGRPCTooLarge(t *testing.T) {
	refusal := fmt.Errorf("%w: grpc: received message larger than max (70000000 vs. 67108864)", a2a.ErrInternalError)
	other := fmt.Errorf("%w: grpc: connection refused", a2a.ErrInternalError)
	type result struct {
		TooLarge, Internal bool
		Text               string
	}
	got := map[string]result{}
	for name, err := range map[string]error{"refusal": refusal, "other": other, "already": ErrResponseTooLarge} {
		e := GRPCTooLarge(err)
		got[name] = result{errors.Is(e, ErrResponseTooLarge), errors.Is(e, a2a.ErrInternalError), e.Error()}
	}
	want := map[string]result{
		"refusal": {true, true, ErrResponseTooLarge.Error() + ": " + refusal.Error()},
		"other":   {false, true, other.Error()},
		"already": {true, false, ErrResponseTooLarge.Error()},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GRPCTooLarge (-want +got):\n%s", d)
	}
	if GRPCTooLarge(nil) != nil {
		t.Error("GRPCTooLarge(nil) != nil")
	}
}
