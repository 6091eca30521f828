package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
)

// A reader of a pipe sees each op of -o ndjson before the next one is
// produced: the test produces op N+1 only after the reader has signalled
// that it read line N. Were the lines held until the buffer filled or the
// stream ended, the reader would never get line 1 and the test would stop
// at its deadline.
func TestNDJSONLiveThroughAPipe(t *testing.T) {
	// A guard, not a synchronisation: it only turns a hang into a failure.
	guard, cancel := context.WithTimeout(t.Context(), testdep.Budget(30*time.Second))
	defer cancel()
	pr, pw := io.Pipe()
	f := newLineWriter(pw)
	sink := &ndjsonSink{w: f, flush: f}
	turn := merge.NewTurn("task-1", "msg-1", merge.DefaultCaps())

	const ops = 5
	read := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			read <- sc.Text()
		}
		close(read)
	}()
	var got []string
	for i := 1; i <= ops; i++ {
		ch := turn.Apply(envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: int64(i),
			Status: envelope.StatusRunning, Payload: envelope.Text{Text: "op"}}})
		if err := sink.update(client.Update{Type: client.UpdateProgress, Change: ch}); err != nil {
			t.Fatal(err)
		}
		select {
		case line := <-read: // the signal: line i arrived while op i+1 does not exist yet
			var m struct {
				Seq int64 `json:"seq"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("line %d: %v (%q)", i, err, line)
			}
			got = append(got, fmt.Sprint(m.Seq))
		case <-guard.Done():
			t.Fatalf("line %d never reached the pipe's reader", i)
		}
	}
	sink.close()
	pw.Close()
	if d := cmp.Diff([]string{"1", "2", "3", "4", "5"}, got); d != "" {
		t.Errorf("seqs read (-want +got):\n%s", d)
	}
}

// Lines that come steadily, closer together than the flush delay, each
// reach the reader within flushDelay of being written: the delay counts
// from the first line not out yet, not from the last line (a stream that
// never pauses for a millisecond would otherwise be held until the buffer
// filled). Fake time: a line every flushDelay/4.
func TestLineWriterSteadyLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		f := newLineWriter(pw)
		type arrival struct {
			line string
			at   time.Time
		}
		var got []arrival
		read := make(chan struct{})
		go func() {
			defer close(read)
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				got = append(got, arrival{sc.Text(), time.Now()})
			}
		}()
		start := time.Now()
		const lines = 40
		for i := range lines {
			if _, err := fmt.Fprintf(f, "%d\n", i); err != nil {
				t.Fatal(err)
			}
			time.Sleep(flushDelay / 4)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		<-read
		if len(got) != lines {
			t.Fatalf("%d lines read, want %d", len(got), lines)
		}
		for i, a := range got {
			written := start.Add(time.Duration(i) * flushDelay / 4)
			if a.line != fmt.Sprint(i) || a.at.Sub(written) > flushDelay {
				t.Errorf("line %d: %q read %v after it was written, want it within %v", i, a.line, a.at.Sub(written), flushDelay)
			}
		}
	})
}

// A closed pipe is the error of a later write, and of Close.
func TestLineWriterWriteError(t *testing.T) {
	pr, pw := io.Pipe()
	pr.CloseWithError(errors.New("reader gone"))
	f := newLineWriter(pw)
	var err error
	for i := 0; i < 1000 && err == nil; i++ {
		_, err = f.Write([]byte("{}\n"))
	}
	if cerr := f.Close(); cerr == nil || cerr.Error() != "reader gone" {
		t.Fatalf("Close = %v, want the pipe's error", cerr)
	}
}

// BenchmarkNDJSONWrite is the cost of one op line of -o ndjson — encoded,
// made termtext.JSONSafe, buffered — written to a pipe whose reader keeps up.
//
//	go test ./cmd/a2a-tail -run '^$' -bench NDJSONWrite -benchmem -count 6
func BenchmarkNDJSONWrite(b *testing.B) {
	turn := merge.NewTurn("task-1", "msg-1", merge.DefaultCaps())
	var updates []client.Update
	for i := 1; i <= 1000; i++ {
		ch := turn.Apply(envelope.Reading{Envelope: envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: int64(i),
			Status: envelope.StatusRunning, Payload: envelope.Text{Text: "a line of progress text"}}})
		updates = append(updates, client.Update{Type: client.UpdateProgress, Change: ch})
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, pr); close(drained) }()
	f := newLineWriter(pw)
	sink := &ndjsonSink{w: f, flush: f}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := sink.update(updates[i%len(updates)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	sink.close()
	pw.Close()
	<-drained
	pr.Close()
}
