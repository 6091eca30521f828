//go:build !goexperiment.jsonv2

package fastframe_test

import "testing"

// floorImpls: jsontext needs GOEXPERIMENT=jsonv2 (floor_jsonv2_test.go).
func floorImpls() []struct {
	name string
	fn   func(b *testing.B, f []byte)
} {
	return nil
}
