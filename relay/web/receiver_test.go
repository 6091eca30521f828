package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// jsCaps is a merge.Caps as the JS Receiver's options spell it; a zero
// field is left out and takes its default on both sides.
type jsCaps struct {
	MaxBlocks      int `json:"maxBlocks,omitempty"`
	MaxStreamKeys  int `json:"maxStreamKeys,omitempty"`
	MaxOutputBytes int `json:"maxOutputBytes,omitempty"`
	MaxTextBytes   int `json:"maxTextBytes,omitempty"`
}

func (c jsCaps) merge() merge.Caps {
	return merge.Caps{MaxBlocks: c.MaxBlocks, MaxStreamKeys: c.MaxStreamKeys, MaxOutputBytes: c.MaxOutputBytes,
		MaxTextBytes: c.MaxTextBytes}
}

// received is what a receiver made of an op stream.
type received struct {
	// Effects are what Apply said of each op.
	Effects []string `json:"effects"`
	// Views are the JSON of each turn's view, in turn order; the latest
	// view alone when there is no turn.
	Views []string `json:"views"`
	// Result is the JSON of the latest turn's result ("null" before it).
	Result string `json:"result"`
	// Refused counts the ops refused because their turn was evicted.
	Refused int64 `json:"refused"`
}

// goReceive feeds the op lines to a Go Receiver, as a front end written in
// Go would: a line that does not decode is counted as invalid, which is
// what the JS Receiver does with it.
func goReceive(t testing.TB, task string, caps jsCaps, lines []string) received {
	t.Helper()
	r := merge.NewReceiver(task, caps.merge())
	var out received
	for _, line := range lines {
		var op schema.Op
		if err := json.Unmarshal([]byte(line), &op); err != nil {
			op = schema.Op{Type: "undecodable"} // Apply counts it in Counters.Invalid
		}
		out.Effects = append(out.Effects, r.Apply(op).String())
	}
	marshalView := func(v schema.View) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal view: %v", err)
		}
		return string(b)
	}
	for _, turn := range r.Turns() {
		v, ok := r.TurnView(turn)
		if !ok {
			t.Fatalf("TurnView(%q) of a turn Turns listed: not ok", turn)
		}
		out.Views = append(out.Views, marshalView(v))
	}
	if len(out.Views) == 0 {
		out.Views = []string{marshalView(r.View())}
	}
	b, err := json.Marshal(r.Result())
	if err != nil {
		t.Fatalf("marshal result: %v", err)
	}
	out.Result, out.Refused = string(b), r.Refused()
	return out
}

// nodeCase is one op stream for the JS side (testdata/harness.mjs).
type nodeCase struct {
	Task string   `json:"task"`
	Caps jsCaps   `json:"caps"`
	Ops  []string `json:"ops"`
}

type nodeAnswer struct {
	received
	// Plain is JSON.stringify of the latest view().
	Plain string `json:"plain"`
}

// needNode returns the path of node, or ends the test ([testdep.Node]).
func needNode(t *testing.T) string {
	t.Helper()
	return testdep.Node(t, "the check of the JavaScript receiver (relay/web/receiver.js)")
}

// jsReceive runs every case through one node process and returns the
// answers in order.
func jsReceive(t *testing.T, cases []nodeCase) []nodeAnswer {
	t.Helper()
	js := jsStart(t, cases)
	answers := make([]nodeAnswer, len(cases))
	for i := range answers {
		answers[i] = js.next()
	}
	js.wait()
	return answers
}

// jsRun is one node process (testdata/harness.mjs) fed every case, whose
// answers the test reads one by one as node makes them: node runs while
// the test does the Go side, and neither side holds all the answers.
type jsRun struct {
	t       *testing.T
	cmd     *exec.Cmd
	answers *json.Decoder
	stderr  bytes.Buffer
	written chan error
	read    int
	waited  bool
}

func jsStart(t *testing.T, cases []nodeCase) *jsRun {
	t.Helper()
	r := &jsRun{t: t, cmd: exec.Command(needNode(t), "testdata/harness.mjs"), written: make(chan error, 1)}
	r.cmd.Stderr = &r.stderr
	stdin, err := r.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !r.waited { // the test ended first: no node left behind
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		}
	})
	go func() {
		w := bufio.NewWriter(stdin)
		enc := json.NewEncoder(w)
		for _, c := range cases {
			if err := enc.Encode(c); err != nil {
				r.written <- err
				return
			}
		}
		if err := w.Flush(); err != nil {
			r.written <- err
			return
		}
		r.written <- stdin.Close()
	}()
	r.answers = json.NewDecoder(bufio.NewReader(stdout))
	return r
}

// next is node's answer to the next case.
func (r *jsRun) next() nodeAnswer {
	r.t.Helper()
	var a nodeAnswer
	if err := r.answers.Decode(&a); err != nil {
		r.t.Fatalf("node answer %d: %v\n%s", r.read, err, r.stderr.String())
	}
	r.read++
	return a
}

// wait checks that node took every case and answered no more.
func (r *jsRun) wait() {
	r.t.Helper()
	if r.answers.More() {
		r.t.Fatalf("node answered more than the %d cases", r.read)
	}
	r.waited = true
	if err := <-r.written; err != nil {
		r.t.Fatalf("writing to node: %v (stderr: %s)", err, r.stderr.String())
	}
	if err := r.cmd.Wait(); err != nil {
		r.t.Fatalf("node: %v\n%s", err, r.stderr.String())
	}
}

// sameValues compares two JSON texts as data — what a JSON reader makes of
// them, numbers exact (decoded as json.Number), key order and escapes
// aside — and returns the difference, "" when there is none. exact false
// reads numbers as float64, as JSON.parse does.
func sameValues(want, got string, exact bool) string {
	if want == got { // the same bytes: the same data, without decoding
		return ""
	}
	decode := func(s string) (any, error) {
		d := json.NewDecoder(strings.NewReader(s))
		if exact {
			d.UseNumber()
		}
		var v any
		err := d.Decode(&v)
		return v, err
	}
	w, errW := decode(want)
	g, errG := decode(got)
	if errW != nil || errG != nil {
		return fmt.Sprintf("undecodable (%v, %v):\nwant %s\ngot  %s", errW, errG, want, got)
	}
	if reflect.DeepEqual(w, g) { // cmp.Diff's reflection is slow: only for a difference
		return ""
	}
	return cmp.Diff(w, g)
}
