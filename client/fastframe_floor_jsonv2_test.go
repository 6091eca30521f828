//go:build goexperiment.jsonv2

package client_test

import (
	"encoding/json/jsontext"
	"testing"
)

// floorImpls: jsontext's single validation pass over the frame, the limit
// a decoder that reads every byte once approaches.
func floorImpls() []frameImpl {
	return []frameImpl{{"floor-jsontext", func(b *testing.B, f []byte) {
		if !jsontext.Value(f).IsValid() {
			b.Fatal("invalid")
		}
	}}}
}
