package agenttest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// cutPlan is one armed [Agent.CutAfter].
type cutPlan struct {
	after  int
	abrupt bool
}

// errCut is what the transport handler gets when it writes to a stream
// that has been cut; it makes the handler give up promptly.
var errCut = errors.New("agenttest: stream cut")

// faults wraps the HTTP transports. Only event-stream responses are
// touched, and only when a cut is armed.
func (s *Agent) faults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		next.ServeHTTP(&cutWriter{ResponseWriter: w, s: s, cancel: cancel}, r.WithContext(ctx))
	})
}

// cutWriter counts the SSE events written and cuts the response after the
// armed number. a2asrv writes an event as "id: …\n" then "data: …\n\n" and
// flushes; keep-alives are ": keep-alive\n\n". A cut happens in Flush, so
// the k-th event is on the wire before it. The transport handlers write
// from one goroutine, so no lock is needed.
type cutWriter struct {
	http.ResponseWriter
	s      *Agent
	cancel context.CancelFunc

	plan   *cutPlan
	events int
	ended  bool
}

func (w *cutWriter) WriteHeader(code int) {
	if w.ended {
		return
	}
	armed := false
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		if p, ok := w.s.takeCut(); ok {
			w.plan, armed = &p, true
		}
	}
	w.ResponseWriter.WriteHeader(code)
	if armed && w.plan.after <= 0 {
		w.Flush()
	}
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if w.ended {
		return 0, errCut
	}
	n, err := w.ResponseWriter.Write(p)
	if w.plan != nil && len(p) > 0 && p[0] != ':' && bytes.HasSuffix(p, []byte("\n\n")) {
		w.events++
	}
	return n, err
}

// Flush implements http.Flusher (a2asrv's SSE writer requires it).
func (w *cutWriter) Flush() {
	if w.ended {
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
	if w.plan != nil && w.events >= w.plan.after {
		w.cut()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *cutWriter) cut() {
	w.ended = true
	if w.plan.abrupt {
		// Closing the hijacked connection leaves the chunked body without
		// its last chunk: the client reads an unexpected EOF.
		if conn, _, err := http.NewResponseController(w.ResponseWriter).Hijack(); err == nil {
			_ = conn.Close()
		}
	}
	// Stops the transport handler; returning from ServeHTTP then ends a
	// clean cut's response with the terminating chunk.
	w.cancel()
}

// grpcFaults is the gRPC side of CutAfter. Every A2A server-streaming RPC
// is SendStreamingMessage or SubscribeToTask (TaskSubscription in 0.3).
func (s *Agent) grpcFaults(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	p, ok := s.takeCut()
	if !ok {
		return handler(srv, ss)
	}
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	cs := &cutStream{ServerStream: ss, ctx: ctx, cancel: cancel, plan: p}
	if p.after <= 0 {
		cs.end()
	}
	err := handler(srv, cs)
	if !cs.ended {
		return err
	}
	if p.abrupt {
		return status.Error(codes.Unavailable, "agenttest: stream cut")
	}
	return nil
}

// cutStream counts the messages sent and ends the stream after the armed
// number. gRPC handlers send from their own goroutine only.
type cutStream struct {
	grpc.ServerStream
	ctx    context.Context
	cancel context.CancelFunc
	plan   cutPlan
	sent   int
	ended  bool
}

func (c *cutStream) Context() context.Context { return c.ctx }

func (c *cutStream) SendMsg(m any) error {
	if c.ended {
		return errCut
	}
	err := c.ServerStream.SendMsg(m)
	c.sent++
	if c.sent >= c.plan.after {
		c.end()
	}
	return err
}

func (c *cutStream) end() {
	c.ended = true
	c.cancel()
}
