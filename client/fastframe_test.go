package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/capture"
	"github.com/tfrs/a2a-progress/internal/fastframe"
	"github.com/tfrs/a2a-progress/internal/ssewire"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// frames reads the data of every event of an SSE body with the live
// reader (Next), and checks it against the strict one (NextEvent) that
// the replay path uses.
func frames(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	rd := ssewire.NewReader(bytes.NewReader(body), 0)
	for {
		data, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(data))
	}
	var want [][]byte
	fr := ssewire.NewStrictReader(bytes.NewReader(body), 0)
	for {
		ev, err := fr.NextEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.HasData && len(bytes.Trim(ev.Data, "\n")) > 0 {
			want = append(want, ev.Data)
		}
	}
	if len(want) != len(out) {
		t.Fatalf("Next read %d events, NextEvent %d", len(out), len(want))
	}
	for i := range want {
		if !bytes.Equal(want[i], out[i]) {
			t.Fatalf("event %d: Next %q, NextEvent %q", i, out[i], want[i])
		}
	}
	return out
}

// compareAll runs Compare and CompareRead on every frame and
// returns how many the Decoder accepted.
func compareAll(t *testing.T, name string, binding a2a.TransportProtocol, fs [][]byte) int {
	t.Helper()
	n := 0
	for i, f := range fs {
		ok, err := Compare(t.Context(), binding, f)
		if err != nil {
			t.Errorf("%s frame %d: %v", name, i, err)
		}
		if ok {
			n++
		}
		if _, err := CompareRead(t.Context(), binding, f); err != nil {
			t.Errorf("%s frame %d: %v", name, i, err)
		}
	}
	return n
}

// TestFastFrameCaptures: every frame of the recorded captures: the A2A 1.0 ones are decoded both
// ways, and the status updates among them must be accepted; v0.3 frames are
// never given to the Decoder by the client, but must not be mistaken for
// 1.0 status updates either (the Decoder declines them).
func TestFastFrameCaptures(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../testdata/captures/*/*.sse")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	total, accepted, v03 := 0, 0, 0
	for _, p := range paths {
		if strings.HasSuffix(p, "query.sse") {
			continue
		}
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fs := frames(t, body)
		dir := filepath.Base(filepath.Dir(p))
		binding := a2a.TransportProtocolHTTPJSON
		if strings.Contains(dir, "jsonrpc") || dir == "seed004" {
			binding = a2a.TransportProtocolJSONRPC
		}
		n := compareAll(t, p, binding, fs)
		if strings.HasPrefix(dir, "v0.3") {
			if n > 0 {
				t.Errorf("%s: %d v0.3 frames accepted as 1.0 status updates", p, n)
			}
			m := 0
			for i, f := range fs {
				ok, err := CompareV03(t.Context(), binding, f)
				if err != nil {
					t.Errorf("%s frame %d: %v", p, i, err)
				}
				if ok {
					m++
				}
			}
			if m != len(fs) {
				t.Errorf("%s: %d of %d v0.3 frames decoded", p, m, len(fs))
			}
			v03 += m
		}
		if strings.HasPrefix(dir, "v1.0") || dir == "seed004" {
			if n == 0 && dir != "seed004" {
				t.Errorf("%s: no frame accepted", p)
			}
			// Every frame of a capture decodes on the general 1.0 path.
			for i, f := range fs {
				ok, err := CompareV1(t.Context(), binding, f)
				if err != nil {
					t.Errorf("%s frame %d: %v", p, i, err)
				}
				if !ok {
					t.Errorf("%s frame %d: DecodeV1 declined it", p, i)
				}
			}
		}
		total += len(fs)
		accepted += n
	}
	t.Logf("%d frames: %d accepted by the one-pass decoder, %d v0.3 frames by DecodeV03, all equal to a2a-go's", total, accepted, v03)
}

// Every frame the reference callee sends on A2A 1.0, over both bindings,
// for a send and for a subscription (a snapshot first): recorded live.
func TestCalleeFrames(t *testing.T) {
	t.Parallel()
	s, err := agenttest.New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	scripts := []agenttest.Script{
		agenttest.Realistic(),
		agenttest.Trajectory(30, agenttest.Named("faults"), agenttest.Reorder(2), agenttest.Duplicate(2), agenttest.SkipSeqs(2),
			agenttest.PlainText(2), agenttest.Oversize()),
		agenttest.Trajectory(10, agenttest.Named("failed"), agenttest.EndIn(a2a.TaskStateFailed)),
		agenttest.Trajectory(10, agenttest.Named("input-required"), agenttest.EndIn(a2a.TaskStateInputRequired)),
	}
	for _, sc := range scripts {
		s.Register(sc)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testdep.Budget(time.Minute))
	defer cancel()
	for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		total, accepted := 0, 0
		for _, sc := range scripts {
			rec := &capture.Recorder{}
			cl, err := client.New(ctx, s.Endpoint(binding, a2a.Version).URL, client.WithTransport(binding),
				client.WithHTTPClient(&http.Client{Transport: rec}))
			if err != nil {
				t.Fatal(err)
			}
			st, err := cl.SendText(ctx, sc.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range st.Updates() {
				if err != nil {
					t.Fatalf("%s %s: %v", binding, sc.Name, err)
				}
			}
			cl.Close()
			for _, str := range rec.Streams() {
				fs := frames(t, str.Body())
				total += len(fs)
				accepted += compareAll(t, string(binding)+"/"+sc.Name, binding, fs)
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no frame accepted", binding)
		}
		t.Logf("%s: %d frames, %d accepted and equal to a2a-go's", binding, total, accepted)
	}
}

// frame wraps an event for a binding, as a2a-go's server renders it.
func frame(binding a2a.TransportProtocol, sr string) string {
	if binding == a2a.TransportProtocolJSONRPC {
		return `{"jsonrpc":"2.0","id":"req-1","result":` + sr + `}`
	}
	return sr
}

const (
	tfrs  = `"{\"v\":1,\"kind\":\"text\",\"streamKey\":\"a\",\"seq\":3,\"status\":\"running\",\"payload\":{\"text\":\"héllo\\n\"}}"`
	su    = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-12-01T00:00:00.123456Z","message":{"messageId":"m1","contextId":"c1","taskId":"t1","role":"ROLE_AGENT","parts":[{"text":"hello","metadata":{"tfrs":` + tfrs + `}}]}}}}`
	suMin = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
)

// The shapes the Decoder must accept, and those it must leave to a2a-go.
func TestDecodeCases(t *testing.T) {
	cases := []struct {
		name   string
		sr     string
		accept bool
	}{
		{"status update", su, true},
		{"no message", suMin, true},
		{"whitespace", strings.ReplaceAll(strings.ReplaceAll(su, `","`, "\" ,\r\n \""), `{"`, "{ \t\""), true},
		{"escapes", strings.Replace(su, `"hello"`, `"h\u00e9\"llo\/\n\t\b\f\r\\"`, 1), true},
		{"two parts", strings.Replace(su, `"parts":[`, `"parts":[{"text":"first"},`, 1), true},
		{"empty parts", strings.Replace(su, `"parts":[{"text":"hello","metadata":{"tfrs":`+tfrs+`}}]`, `"parts":[]`, 1), true},
		{"empty metadata", strings.Replace(su, `{"tfrs":`+tfrs+`}`, `{}`, 1), true},
		{"two metadata keys", strings.Replace(su, `{"tfrs":`, `{"other":"x","tfrs":`, 1), true},
		{"unspecified state", strings.Replace(su, `TASK_STATE_WORKING`, `TASK_STATE_UNSPECIFIED`, 1), true},
		{"unknown state", strings.Replace(su, `TASK_STATE_WORKING`, `busy`, 1), true},
		{"timestamp with offset", strings.Replace(su, `00.123456Z`, `00+02:00`, 1), true},
		{"non-ASCII text", strings.Replace(su, `"hello"`, `"日本語 🎉"`, 1), true},

		{"surrogate pair", strings.Replace(su, `"hello"`, `"\ud83c\udf89"`, 1), false},
		{"lone surrogate", strings.Replace(su, `"hello"`, `"\ud83c"`, 1), false},
		{"invalid UTF-8", strings.Replace(su, `"hello"`, "\"\xff\"", 1), false},
		{"case-variant key", strings.Replace(su, `"taskId"`, `"TaskId"`, 1), false},
		{"duplicate key", strings.Replace(su, `"taskId":"t1"`, `"taskId":"t1","taskId":"t2"`, 1), false},
		{"duplicate metadata key", strings.Replace(su, `{"tfrs":`, `{"tfrs":"x","tfrs":`, 1), false},
		{"unknown key", strings.Replace(su, `"taskId"`, `"kind":"x","taskId"`, 1), false},
		{"escaped key", strings.Replace(su, `"taskId"`, `"task\u0049d"`, 1), false},
		{"non-string tfrs", strings.Replace(su, tfrs, `{"v":1}`, 1), false},
		{"number tfrs", strings.Replace(su, tfrs, `1`, 1), false},
		{"null message", strings.Replace(suMin, `"TASK_STATE_WORKING"`, `"TASK_STATE_WORKING","message":null`, 1), false},
		{"event metadata", strings.Replace(su, `"taskId"`, `"metadata":{"a":"b"},"taskId"`, 1), false},
		{"data part", strings.Replace(su, `{"text":"hello",`, `{"data":{"a":1},`, 1), false},
		{"part without text", strings.Replace(su, `"text":"hello",`, ``, 1), false},
		{"bad timestamp", strings.Replace(su, `2026-12-01T00:00:00.123456Z`, `yesterday`, 1), false},
		{"trailing data", su + `x`, false},
		{"truncated", su[:len(su)-3], false},
		{"task snapshot", `{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`, false},
		{"artifact update", `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`, false},
		{"message", `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`, false},
		{"two events", strings.Replace(su, `{"statusUpdate"`, `{"message":{"messageId":"m","parts":[]},"statusUpdate"`, 1), false},
	}
	for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		for _, c := range cases {
			t.Run(string(binding)+"/"+c.name, func(t *testing.T) {
				data := []byte(frame(binding, c.sr))
				ok, err := Compare(t.Context(), binding, data)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := CompareV1(t.Context(), binding, data); err != nil {
					t.Fatal(err)
				}
				if ok != c.accept {
					t.Fatalf("accepted = %v, want %v: %s", ok, c.accept, data)
				}
			})
		}
	}
	rpcOnly := []struct {
		name, frame string
	}{
		{"error frame", `{"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"Task not found"}}`},
		{"numeric id", `{"jsonrpc":"2.0","id":1,"result":` + su + `}`},
		{"no result", `{"jsonrpc":"2.0","id":"1"}`},
		{"result and error", `{"jsonrpc":"2.0","id":"1","result":` + su + `,"error":{"code":1,"message":"x"}}`},
	}
	for _, c := range rpcOnly {
		ok, err := Compare(t.Context(), a2a.TransportProtocolJSONRPC, []byte(c.frame))
		if err != nil || ok {
			t.Errorf("%s: accepted %v, %v", c.name, ok, err)
		}
		if _, err := CompareV1(t.Context(), a2a.TransportProtocolJSONRPC, []byte(c.frame)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// The oracle speaks v0.3 too: a v0.3 status update converts to the same
// 1.0 event on both of its bindings' decoders where they agree on shape.
func TestOracleV03(t *testing.T) {
	rpc := `{"jsonrpc":"2.0","id":"1","result":{"kind":"status-update","taskId":"t1","contextId":"c1","final":false,"status":{"state":"working"}}}`
	ev, err := A2A(t.Context(), a2a.TransportProtocolJSONRPC, a2av0.Version, []byte(rpc))
	if err != nil {
		t.Fatal(err)
	}
	if su, ok := ev.(*a2a.TaskStatusUpdateEvent); !ok || su.Status.State != a2a.TaskStateWorking {
		t.Fatalf("got %#v", ev)
	}
}

// Read returns the plain progress frames — working or submitted, one part
// carrying a tfrs string, a valid envelope or not — as a Progress, equal
// to a2a-go's reading of them; every other accepted frame as the a2a-go
// event.
func TestReadProgress(t *testing.T) {
	cases := []struct {
		name     string
		sr       string
		progress bool
	}{
		{"working with an envelope", su, true},
		{"submitted", strings.Replace(su, "TASK_STATE_WORKING", "TASK_STATE_SUBMITTED", 1), true},
		{"no timestamp", strings.Replace(su, `"timestamp":"2026-12-01T00:00:00.123456Z",`, "", 1), true},
		{"other metadata too", strings.Replace(su, `"metadata":{`, `"metadata":{"x":"y",`, 1), true},
		{"completed", strings.Replace(su, "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", 1), false},
		{"input required", strings.Replace(su, "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", 1), false},
		{"no message", suMin, false},
		{"two parts", strings.Replace(su, `"parts":[`, `"parts":[{"text":"first"},`, 1), false},
		{"no tfrs", strings.Replace(su, `"tfrs"`, `"other"`, 1), false},
		{"repeated metadata key", strings.Replace(su, `"metadata":{`, `"metadata":{"tfrs":"x",`, 1), false},
		{"invalid envelope: the client falls back", strings.Replace(su, `{\"v\":1,`, `{\"v\":\"x\",`, 1), true},
	}
	for _, c := range cases {
		for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
			t.Run(c.name+"/"+string(binding), func(t *testing.T) {
				progress, err := CompareRead(t.Context(), binding, []byte(frame(binding, c.sr)))
				if err != nil {
					t.Fatal(err)
				}
				if progress != c.progress {
					t.Errorf("read as progress: %v, want %v", progress, c.progress)
				}
			})
		}
	}
}

// Read decodes the plain artifact updates itself — equal to a2a-go's
// reading — and leaves the others to a2a-go (declines them); Decode, the
// status updates' decoder, declines every artifact update.
func TestReadArtifactUpdates(t *testing.T) {
	const au = `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","name":"report","parts":[{"text":"line 1\n"}]}}}`
	cases := []struct {
		name   string
		sr     string
		accept bool
	}{
		{"plain", au, true},
		{"appended, last chunk", strings.Replace(au, `"contextId":"c1",`, `"contextId":"c1","append":true,"lastChunk":true,`, 1), true},
		{"append false", strings.Replace(au, `"contextId":"c1",`, `"contextId":"c1","append":false,`, 1), true},
		{"description, escapes, part metadata", strings.Replace(au, `"name":"report","parts":[{"text":"line 1\n"}]`,
			`"name":"r\u00e9port \"q\"","description":"d","parts":[{"text":"a\tb"},{"text":"x","metadata":{"k":"v"}}]`, 1), true},
		{"no parts", strings.Replace(au, `,"parts":[{"text":"line 1\n"}]`, ``, 1), true},
		{"empty parts", strings.Replace(au, `[{"text":"line 1\n"}]`, `[]`, 1), true},
		{"no artifact", `{"artifactUpdate":{"taskId":"t1","contextId":"c1"}}`, false},
		{"append null", strings.Replace(au, `"contextId":"c1",`, `"contextId":"c1","append":null,`, 1), false},
		{"append a string", strings.Replace(au, `"contextId":"c1",`, `"contextId":"c1","append":"true",`, 1), false},
		{"event metadata", strings.Replace(au, `"contextId":"c1",`, `"contextId":"c1","metadata":{"k":"v"},`, 1), false},
		{"artifact metadata", strings.Replace(au, `"artifactId":"a1",`, `"artifactId":"a1","metadata":{"k":"v"},`, 1), false},
		{"extensions", strings.Replace(au, `"artifactId":"a1",`, `"artifactId":"a1","extensions":["x"],`, 1), false},
		{"a data part", strings.Replace(au, `{"text":"line 1\n"}`, `{"data":{"n":1}}`, 1), false},
		{"repeated key", strings.Replace(au, `"artifactId":"a1",`, `"artifactId":"a1","artifactId":"a2",`, 1), false},
		{"with a status update", strings.Replace(au, `{"artifactUpdate"`, `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}},"artifactUpdate"`, 1), false},
	}
	for _, c := range cases {
		for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
			t.Run(c.name+"/"+string(binding), func(t *testing.T) {
				data := []byte(frame(binding, c.sr))
				d := fastframe.Decoder{RPC: binding == a2a.TransportProtocolJSONRPC}
				ev, ok := d.Read(data)
				if ok != c.accept {
					t.Fatalf("Read accepted: %v, want %v (%#v)", ok, c.accept, ev)
				}
				if _, ok := ev.(*a2a.TaskArtifactUpdateEvent); c.accept && !ok {
					t.Fatalf("Read gave %T", ev)
				}
				if _, err := CompareRead(t.Context(), binding, data); err != nil {
					t.Fatal(err)
				}
				if accepted, err := Compare(t.Context(), binding, data); accepted || err != nil {
					t.Errorf("Decode accepted %v (%v), want declined", accepted, err)
				}
			})
		}
	}
}

// A kept string of a built event holds its own bytes, not its frame's:
// the artifact ids of 32 frames of 1 MiB, or the two-byte texts of 32
// status updates with 1 MiB of metadata, kept, keep far less than 1 MiB
// alive.
func TestReadKeepsNoFrame(t *testing.T) {
	big := strings.Repeat("b", 1<<20)
	for _, c := range []struct {
		name  string
		frame func(i int) string
		keep  func(a2a.Event) string
	}{
		{"artifact id", func(i int) string {
			return `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a` + strconv.Itoa(i) +
				`","parts":[{"text":"` + big + `"}]}}}`
		}, func(ev a2a.Event) string { return string(ev.(*a2a.TaskArtifactUpdateEvent).Artifact.ID) }},
		{"status text", func(i int) string {
			return `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m` +
				strconv.Itoa(i) + `","role":"ROLE_AGENT","parts":[{"text":"hi","metadata":{"junk":"` + big + `"}}]}}}}`
		}, func(ev a2a.Event) string { return ev.(*a2a.TaskStatusUpdateEvent).Status.Message.Parts[0].Text() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := fastframe.Decoder{RPC: true}
			var kept []string
			before := liveHeap()
			for i := range 32 {
				ev, ok := d.Read([]byte(frame(a2a.TransportProtocolJSONRPC, c.frame(i))))
				if !ok {
					t.Fatal("declined")
				}
				kept = append(kept, c.keep(ev)) // the same string, no copy
			}
			if grown := int64(liveHeap()) - int64(before); grown > 1<<20 {
				t.Errorf("32 kept strings keep %d KiB alive, want under 1 MiB", grown>>10)
			}
			runtime.KeepAlive(kept)
		})
	}
}

// liveHeap is the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
