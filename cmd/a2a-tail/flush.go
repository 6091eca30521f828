package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// lineWriter buffers the lines of -o ndjson, written by the goroutine that
// reads the stream, into one buffer of flushBuffer bytes: a busy stream is
// written in few large writes (one write(2) per op cost 11–15 µs), with no
// copy and no hand-off per line. What is buffered goes out when the buffer
// fills, at the end, and at the latest flushDelay after the first line
// that is not out yet — a timer armed once per flush, not reset per line —
// so a live pipe sees every op within flushDelay of it, however steadily
// the lines come.
//
// The buffer is the only thing held: a line larger than it is written
// through. A slow reader blocks the writer (and the stream under it). The
// first write error is sticky: every later Write and Close returns it, so
// a closed pipe stops the command at its next op.
type lineWriter struct {
	mu    sync.Mutex
	bw    *bufio.Writer
	timer *time.Timer
	armed bool // the timer will flush what is buffered
	err   error
}

const (
	flushBuffer = 64 << 10
	// flushDelay bounds how long a line waits in the buffer: far below
	// what a reader of a live stream notices, far above the microseconds
	// between the ops of a burst.
	flushDelay = time.Millisecond
)

func newLineWriter(w io.Writer) *lineWriter {
	l := &lineWriter{bw: bufio.NewWriterSize(w, flushBuffer)}
	l.timer = time.AfterFunc(time.Hour, func() { l.flush() })
	l.timer.Stop()
	return l
}

// Write buffers p, a whole line.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return 0, l.err
	}
	if _, l.err = l.bw.Write(p); l.err != nil {
		return 0, l.err
	}
	if !l.armed && l.bw.Buffered() > 0 {
		l.armed = true
		l.timer.Reset(flushDelay)
	}
	return len(p), nil
}

// flush writes what is buffered and returns the first write error.
func (l *lineWriter) flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	if l.err == nil {
		l.err = l.bw.Flush()
	}
	return l.err
}

// Close writes what is buffered and returns the first write error. It may
// be called more than once.
func (l *lineWriter) Close() error {
	l.timer.Stop()
	return l.flush()
}
