package fastframe_test

import (
	"fmt"

	"github.com/tfrs/a2a-progress/internal/fastframe"
)

// A status update is decoded in one pass; a frame of another kind is
// declined, for a2a-go to decode.
func ExampleDecoder_Decode() {
	d := fastframe.Decoder{RPC: true}
	ev, ok := d.Decode([]byte(`{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1",` +
		`"status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"reading"}]}}}}}`))
	fmt.Println(ok, ev.TaskID, ev.Status.State, ev.Status.Message.Parts[0].Text())
	_, ok = d.Decode([]byte(`{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t1"}}}`))
	fmt.Println(ok)
	// Output:
	// true t1 TASK_STATE_WORKING reading
	// false
}
