// Package capture records raw SSE streams from a live peer, for the golden
// tests of testdata/captures (package client's), which replay them.
//
// A [Recorder] is an http.RoundTripper: put it under the HTTP client of
// client.New (client.WithHTTPClient) and it tees the body of every
// text/event-stream response, byte for byte, as the client reads it.
// [Normalise] then replaces what differs between runs — UUIDs (task,
// context, message, artifact and SSE event ids) and timestamps — by stable
// values, so that re-recording the same trajectory gives the same file.
//
// A recorded A2A stream is read back with recorded.Events (format detected),
// for client.Replay; a /v1/query capture with client/internal/projection.
package capture

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"regexp"
	"sync"
)

// Recorder tees the bodies of SSE responses. It is safe for concurrent use.
type Recorder struct {
	// Base is the transport that does the work (http.DefaultTransport when
	// nil).
	Base http.RoundTripper

	mu      sync.Mutex
	streams []*Stream
}

// Stream is one recorded SSE response.
type Stream struct {
	Method, URL string
	mu          sync.Mutex
	body        bytes.Buffer
}

// Body returns a copy of the bytes recorded so far.
func (s *Stream) Body() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.body.Bytes())
}

// RoundTrip implements http.RoundTripper.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	base := r.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return resp, nil
	}
	s := &Stream{Method: req.Method, URL: req.URL.String()}
	r.mu.Lock()
	r.streams = append(r.streams, s)
	r.mu.Unlock()
	resp.Body = &teeBody{rc: resp.Body, s: s}
	return resp, nil
}

// Streams returns the streams recorded so far, in the order their
// responses arrived.
func (r *Recorder) Streams() []*Stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Stream(nil), r.streams...)
}

type teeBody struct {
	rc io.ReadCloser
	s  *Stream
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.s.mu.Lock()
		t.s.body.Write(p[:n])
		t.s.mu.Unlock()
	}
	return n, err
}

// Close reads what the peer still sends before closing: a client stops
// reading at the settling event, and the recording should hold the stream
// as the peer ended it (A2A servers close right after that event).
func (t *teeBody) Close() error {
	_, _ = io.Copy(io.Discard, io.LimitReader(t, 1<<20))
	return t.rc.Close()
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
)

// Normalise replaces each distinct UUID by a stable one numbered in order
// of first appearance (00000000-0000-4000-8000-000000000001, …), keeping
// equal ids equal, and every RFC 3339 timestamp by 2026-11-30T00:00:00Z.
func Normalise(b []byte) []byte {
	ids := map[string]string{}
	b = uuidRE.ReplaceAllFunc(b, func(m []byte) []byte {
		id, ok := ids[string(m)]
		if !ok {
			id = fmt.Sprintf("00000000-0000-4000-8000-%012d", len(ids)+1)
			ids[string(m)] = id
		}
		return []byte(id)
	})
	return timeRE.ReplaceAll(b, []byte("2026-11-30T00:00:00Z"))
}
