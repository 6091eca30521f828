package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/jsonstr"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/merge"
)

// FloorSend is the floor the SDK's cost is measured against: the least a
// Go consumer of a progress stream must do, in one pass and nothing more.
// It POSTs the streaming call itself, splits the body into events with
// the repository's SSE reader, finds the "tfrs" metadata value of each
// frame with one scan, unescapes it, parses the envelope and applies it to
// a merge.Turn (default caps). It builds no a2a-go event, checks no
// JSON-RPC envelope, keeps no task state but "completed", and recovers
// from nothing: a consumer that is right only about the frames a
// FrameServer writes. With valid, it also checks that each frame is JSON
// (one jsonstr.Scanner pass, as the SDK's decoder makes): the share of the
// SDK's cost over the floor that is checking the frame at all.
func FloorSend(ctx context.Context, hc *http.Client, t Target, text string, valid bool) (Result, error) {
	if hc == nil {
		hc = &http.Client{}
	}
	msg, _ := json.Marshal(text)
	body := `{"message":{"messageId":"u-1","role":"ROLE_USER","parts":[{"text":` + string(msg) + `}]}}`
	url := t.endpoint() + "/message:stream"
	if t.Transport != a2a.TransportProtocolHTTPJSON {
		body = `{"jsonrpc":"2.0","id":"1","method":"SendStreamingMessage","params":` + body + `}`
		url = t.endpoint()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	var r Result
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return r, fmt.Errorf("bench: floor: status %s", resp.Status)
	}
	turn := merge.NewTurn("task-send", "u-1", merge.DefaultCaps())
	rd := ssewire.NewReader(resp.Body, 0)
	var (
		unesc []byte
		sc    jsonstr.Scanner
	)
	for {
		data, err := rd.Next()
		if err != nil {
			r.Elapsed = time.Since(start)
			if r.State != a2a.TaskStateCompleted {
				return r, fmt.Errorf("bench: floor: stream ended after %d events in %q: %v", r.Events, r.State, err)
			}
			return r, nil
		}
		r.Events++
		if valid {
			if sc.Reset(data); !sc.Skip() || !sc.Done() {
				return r, fmt.Errorf("bench: floor: event %d is not JSON: %s", r.Events, sc.Err())
			}
		}
		raw, esc, ok := tfrsValue(data)
		if !ok {
			if bytes.Contains(data, []byte(`"TASK_STATE_COMPLETED"`)) {
				r.State = a2a.TaskStateCompleted
			}
			continue
		}
		if esc {
			unesc = jsonstr.AppendUnescaped(unesc[:0], raw)
			raw = unesc
		}
		rd, ok := envelope.FromTfrs(raw)
		if !ok {
			return r, fmt.Errorf("bench: floor: event %d: no valid envelope", r.Events)
		}
		r.Progress++
		if ch := turn.Apply(rd); ch.Effect == merge.Applied {
			r.Applied++
		}
		r.State = a2a.TaskStateWorking
	}
}

var tfrsKey = []byte(`"tfrs":"`)

// tfrsValue finds the string value of the first "tfrs" key of frame: its
// raw bytes between the quotes and whether they hold escapes.
func tfrsValue(frame []byte) (raw []byte, esc, ok bool) {
	i := bytes.Index(frame, tfrsKey)
	if i < 0 {
		return nil, false, false
	}
	s := frame[i+len(tfrsKey):]
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '"':
			return s[:j], esc, true
		case '\\':
			esc = true
			j++
		}
	}
	return nil, false, false
}
