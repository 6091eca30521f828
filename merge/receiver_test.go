package merge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/envelope"
)

func TestReceiver(t *testing.T) {
	turn := NewTurn("t1", Caps{})
	a := turn.Apply(run("c1", 1, call("grep"))).Op
	b := turn.Apply(fallback("msg:1", "x", envelope.ReasonNoEnvelope)).Op
	seal := turn.Seal()
	badFallback := b
	badFallback.Block.Ordinal = 0
	badBlock := a
	badBlock.Block.Kind = envelope.KindText
	placedEnvelope := a
	placedEnvelope.Block.Ordinal = 3

	tests := []struct {
		name string
		ops  []Op
		want View
	}{
		{
			name: "a block after the seal is still applied",
			ops:  []Op{seal, b, a, a},
			want: View{Task: "t1", Sealed: true, Blocks: []Block{a.Block, b.Block},
				ToolCalls: []ToolCall{{Key: "c1", Tool: "grep", Status: ToolUnfinished, Started: true, FirstSeq: 1}},
				Counters:  Counters{Applied: 2, Duplicates: 1, Fallbacks: map[envelope.Reason]int64{envelope.ReasonNoEnvelope: 1}}},
		},
		{
			name: "ops of another task, unknown types and bad blocks are counted, not applied",
			ops:  []Op{{Type: OpSeal, Task: "t2"}, {Type: "rewind", Task: "t1"}, badFallback, badBlock, placedEnvelope},
			want: View{Task: "t1", Counters: Counters{Invalid: 5}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReceiver("t1", Caps{})
			for _, op := range tt.ops {
				r.Apply(op)
			}
			if d := cmp.Diff(tt.want, r.View()); d != "" {
				t.Errorf("View (-want +got):\n%s", d)
			}
		})
	}
}
