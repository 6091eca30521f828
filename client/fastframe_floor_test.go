//go:build !goexperiment.jsonv2

package client_test

// floorImpls: jsontext needs GOEXPERIMENT=jsonv2 (fastframe_floor_jsonv2_test.go).
func floorImpls() []frameImpl { return nil }
