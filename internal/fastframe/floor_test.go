//go:build !goexperiment.jsonv2

package fastframe_test

// floorImpls: jsontext needs GOEXPERIMENT=jsonv2 (floor_jsonv2_test.go).
func floorImpls() []frameImpl { return nil }
