package main

import (
	"bufio"
	"io"
	"sync"
)

// idleFlusher buffers the lines of -o ndjson and flushes them whenever its
// writer has nothing more queued: a busy stream is written in few large
// writes (one write(2) per op cost 11–15 µs), and a live pipe still sees
// every op as soon as the stream pauses — the flush is triggered by the
// empty queue, not by a timer.
//
// Lines are copied into a queue of at most flushQueue lines, written by
// one goroutine into a buffer of flushBuffer bytes; a producer faster than
// stdout blocks on the full queue, so what is held is bounded by the
// queue and the buffer (a line's size is bounded by the stream's own caps).
// The first write error is sticky: every later Write and Close returns it,
// so a closed pipe stops the command at its next op.
type idleFlusher struct {
	q    chan []byte
	done chan struct{}

	mu   sync.Mutex
	err  error
	once sync.Once
}

const (
	flushQueue  = 64
	flushBuffer = 64 << 10
)

func newIdleFlusher(w io.Writer) *idleFlusher {
	f := &idleFlusher{q: make(chan []byte, flushQueue), done: make(chan struct{})}
	go f.run(bufio.NewWriterSize(w, flushBuffer))
	return f
}

func (f *idleFlusher) run(bw *bufio.Writer) {
	defer close(f.done)
	var err error
	for line := range f.q {
		if err != nil {
			continue // drain: a producer blocked on the queue must not hang
		}
		if _, err = bw.Write(line); err == nil && len(f.q) == 0 {
			err = bw.Flush()
		}
		if err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
		}
	}
	if err == nil {
		if err = bw.Flush(); err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
		}
	}
}

// Write queues a copy of p.
func (f *idleFlusher) Write(p []byte) (int, error) {
	if err := f.failed(); err != nil {
		return 0, err
	}
	f.q <- append([]byte(nil), p...)
	return len(p), nil
}

func (f *idleFlusher) failed() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Close writes what is queued, stops the goroutine and returns the first
// write error. It may be called more than once.
func (f *idleFlusher) Close() error {
	f.once.Do(func() { close(f.q) })
	<-f.done
	return f.failed()
}
