package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/tfrs/a2a-progress/envelope"
)

// framesServer serves one pre-rendered JSON-RPC stream of n working
// updates (each carrying a ~200-byte envelope) and a completed state, so
// that a benchmark measures the caller, not a2asrv.
func framesServer(b *testing.B, n int) *httptest.Server {
	b.Helper()
	var body []byte
	body = append(body, renderFrame(taskEv(a2a.TaskStateSubmitted, userMsg()))...)
	for i := range n {
		key := fmt.Sprintf("call-%d", i/8)
		p, err := envelope.NewPart(envelope.Envelope{V: 1, Kind: envelope.KindToolOutputAppend, StreamKey: key, Seq: int64(i + 1),
			Status: envelope.StatusRunning, Payload: envelope.ToolOutputAppend{Tool: "search", ToolCallID: key, Chunk: "a line of tool output, about sixty bytes long ..........\n"}}, "")
		if err != nil {
			b.Fatal(err)
		}
		ev := &a2a.TaskStatusUpdateEvent{TaskID: rawTask, ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking,
			Message: &a2a.Message{ID: fmt.Sprintf("m%d", i), Role: a2a.MessageRoleAgent, Parts: a2a.ContentParts{p}}}}
		body = append(body, renderFrame(ev)...)
	}
	body = append(body, renderFrame(completed("done"))...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

const benchEvents = 2000

// BenchmarkRawA2A is the floor: a2a-go's JSON-RPC client reading the
// stream and discarding every event.
func BenchmarkRawA2A(b *testing.B) {
	srv := framesServer(b, benchEvents)
	ctx := context.Background()
	ac, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL, a2a.TransportProtocolJSONRPC)},
		a2aclient.WithJSONRPCTransport(&http.Client{}))
	if err != nil {
		b.Fatal(err)
	}
	defer ac.Destroy()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		n := 0
		for _, err := range ac.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg()}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchEvents+2 {
			b.Fatalf("%d events", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchEvents+2)), "ns/event")
}

// BenchmarkStream is the same stream through the client: envelope
// reading, merge, verdict tracking, idle watchdog, one Update per event.
func BenchmarkStream(b *testing.B) {
	srv := framesServer(b, benchEvents)
	ctx := context.Background()
	c, err := New(ctx, srv.URL, WithTransport(a2a.TransportProtocolJSONRPC))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s, _ := c.SendText(ctx, "go")
		n := 0
		for _, err := range s.Updates() {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if _, err := s.Outcome(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchEvents+2)), "ns/event")
}
