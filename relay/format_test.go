package relay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/relay"
)

// traceEncoder writes what the relay asked of it, one event per call.
type traceEncoder struct{}

func (traceEncoder) Begin(h http.Header, ew *relay.EventWriter) error {
	h.Set("X-Format", "trace")
	return ew.Event("", "begin", nil)
}
func (traceEncoder) SnapshotStart(ew *relay.EventWriter) error {
	return ew.Event("", "snapshot-start", nil)
}
func (traceEncoder) SnapshotEnd(ew *relay.EventWriter) error {
	return ew.Event("", "snapshot-end", nil)
}
func (traceEncoder) Op(ew *relay.EventWriter, ev relay.Event) error {
	return ew.Event(ev.ID, "op", fmt.Appendf(nil, "%s snapshot=%v", ev.Op.Type, ev.Snapshot))
}
func (traceEncoder) End(ew *relay.EventWriter, settled bool) error {
	return ew.Event("", "end", fmt.Appendf(nil, "settled=%v", settled))
}

// A format given with WithFormat sees the snapshot bracketed, the ops and
// the end; an unknown one is refused; the default stays ops.
func TestFormatSeam(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("fmt", 12, "go"), relay.WithTTL(time.Hour),
		relay.WithFormat("trace", func(r *http.Request, task string) (relay.Encoder, error) {
			if r.URL.Query().Get("bad") != "" {
				return nil, errors.New("trace: bad option")
			}
			return traceEncoder{}, nil
		}))
	all := s.live(t, "go")
	resp, err := http.Get(s.url + "?format=trace")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("X-Format") != "trace" {
		t.Errorf("the encoder's header is missing")
	}
	var got []string
	for _, block := range strings.Split(string(body), "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		if name != "" {
			got = append(got, strings.TrimSpace(name+" "+data))
		}
	}
	want := []string{"begin", "snapshot-start"}
	snap, err := readAll(testCtx(t), s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range snap {
		want = append(want, fmt.Sprintf("op %s snapshot=true", ev.Op.Type))
	}
	want = append(want, "snapshot-end", "end settled=true")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace (-want +got):\n%s", d)
	}
	if len(all) == 0 {
		t.Fatal("no ops")
	}
	resp2, err := http.Get(s.url + "?format=trace&bad=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var e struct{ Error string }
	_ = json.NewDecoder(resp2.Body).Decode(&e)
	if resp2.StatusCode != 400 || e.Error != "trace: bad option" {
		t.Errorf("bad option: %d %q, want 400 and the format's reason", resp2.StatusCode, e.Error)
	}
}

// Past the subscriber caps a request gets 503 with Retry-After, as JSON.
func TestSubscriberCap(t *testing.T) {
	t.Parallel()
	s := newSetup(t, gatedScript("cap", 3, "never"), relay.WithSubscriberCaps(1, 10))
	ctx := testCtx(t)
	c, err := open(ctx, s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	resp, err := http.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct{ Error string }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || e.Error != "relay: too many subscribers for this task" {
		t.Errorf("second subscriber: %d, Retry-After %q, %q", resp.StatusCode, resp.Header.Get("Retry-After"), e.Error)
	}
}
