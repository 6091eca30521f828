package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/tfrs/a2a-progress/schema"
)

// A callee that puts its whole answer in an artifact leaves the reply
// empty; Answer gives the artifact's text. An orchestrator that passes a
// sub-agent's answer on calls Answer, not Reply.
func ExampleResult_Answer() {
	line := `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed",` +
		`"artifacts":[{"id":"a1","name":"report","text":"3 expenses approved"},{"id":"a2","text":""}],` +
		`"counters":{"applied":4,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`
	var op schema.Op
	if err := json.Unmarshal([]byte(line), &op); err != nil {
		fmt.Println(err)
		return
	}
	r := op.Result
	fmt.Printf("verdict %s, reply %q, answer %q\n", r.Verdict, r.Reply, r.Answer())

	r.Reply = "done: see the report"
	fmt.Printf("answer %q\n", r.Answer())
	// Output:
	// verdict completed, reply "", answer "3 expenses approved"
	// answer "done: see the report"
}

// A decoder that meets an op no Turn could have sent says what is wrong.
func ExampleOp_UnmarshalJSON() {
	line := `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_FAILED","verdict":"completed",` +
		`"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0}}`
	var op schema.Op
	fmt.Println(json.Unmarshal([]byte(line), &op))
	// Output:
	// schema: bad op: result: verdict "completed" with state "TASK_STATE_FAILED" (whose verdict is failed)
}
