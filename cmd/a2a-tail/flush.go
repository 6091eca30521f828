package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// idleFlusher buffers the lines of -o ndjson and flushes them whenever the
// stream idles — no line has come for flushIdle — or the buffer fills: a
// busy stream is written in few large writes (one write(2) per op cost
// 11–15 µs), and a live pipe still sees every op within flushIdle of it.
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
	// flushIdle is how long the stream must pause for a flush: far below
	// what a reader of a live stream notices, far above the microseconds
	// between the ops of a burst.
	flushIdle = time.Millisecond
)

func newIdleFlusher(w io.Writer) *idleFlusher {
	f := &idleFlusher{q: make(chan []byte, flushQueue), done: make(chan struct{})}
	go f.run(bufio.NewWriterSize(w, flushBuffer))
	return f
}

func (f *idleFlusher) run(bw *bufio.Writer) {
	defer close(f.done)
	idle := time.NewTimer(flushIdle)
	idle.Stop()
	var err error
	pending := false // bytes in bw not flushed yet
	for {
		var (
			line []byte
			ok   bool
		)
		if pending {
			idle.Reset(flushIdle)
			select {
			case line, ok = <-f.q:
				idle.Stop()
			case <-idle.C:
				err = f.fail(err, bw.Flush())
				pending = false
				continue
			}
		} else {
			line, ok = <-f.q
		}
		if !ok {
			break
		}
		if err != nil {
			continue // drain: a producer blocked on the queue must not hang
		}
		_, werr := bw.Write(line)
		err = f.fail(err, werr)
		pending = err == nil
	}
	if err == nil {
		f.fail(nil, bw.Flush())
	}
}

// fail records the first write error and returns it (or old).
func (f *idleFlusher) fail(old, err error) error {
	if old != nil || err == nil {
		return old
	}
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
	return err
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
