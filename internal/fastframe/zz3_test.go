package fastframe

import (
	"strings"
	"testing"
)

func BenchmarkZZ(b *testing.B) {
	parts := strings.Repeat(`{"text":"x"},`, 750000)
	frame := []byte(`{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[` + parts[:len(parts)-1] + `]}}}}}`)
	for b.Loop() {
		var d Decoder
		d.RPC = true
		d.Decode(frame)
	}
}
