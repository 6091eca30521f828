package fastframe_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// A part of many metadata keys is read in time linear in its size: the
// check for a repeated key (which a2a-go's map would fold) once compared
// every pair, 1.5 s for 20 000 keys and hours for the million a 10 MiB
// frame holds.
func TestReadManyMetadataKeys(t *testing.T) {
	const n = 300_000
	var b strings.Builder
	b.WriteString(`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING",` +
		`"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"x","metadata":{`)
	for i := range n {
		b.WriteString(`"k` + strconv.Itoa(i) + `":"",`)
	}
	b.WriteString(`"tfrs":"{}"}}]}}}}`)
	frame := []byte(b.String())
	ctx, cancel := context.WithTimeout(t.Context(), testdep.Budget(10*time.Second))
	defer cancel()
	done := make(chan string, 1)
	go func() {
		var d fastframe.Decoder
		ev, ok := d.Read(frame)
		p, _ := ev.(*fastframe.Progress)
		if !ok || p == nil {
			done <- "not read as progress"
			return
		}
		done <- string(p.Tfrs)
	}()
	select {
	case got := <-done:
		if got != "{}" {
			t.Errorf("Read: %s, want the tfrs string {}", got)
		}
	case <-ctx.Done():
		t.Fatalf("a part of %d metadata keys (%d bytes) not read within %v", n, len(frame), testdep.Budget(10*time.Second))
	}
}
