package agenttest

import "testing"

// Every working frame has its holes: the seq in the envelope and in the
// message id, the task id in the event and in its message.
func TestTemplateHoles(t *testing.T) {
	s := NewFrameServer(20)
	for w, f := range s.wires {
		for j, tmpl := range f.working {
			var seqs, tasks int
			for _, p := range tmpl {
				switch p.fill {
				case holeSeq:
					seqs++
				case holeTask:
					tasks++
				}
			}
			if seqs != 2 || tasks != 2 {
				t.Fatalf("wire %d, step %d: %d seq holes, %d task holes, want 2 and 2", w, j, seqs, tasks)
			}
		}
	}
}
