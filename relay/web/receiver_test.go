package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
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
	cmd := exec.Command(needNode(t), "testdata/harness.mjs")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		enc := json.NewEncoder(w)
		for _, c := range cases {
			if err := enc.Encode(c); err != nil {
				written <- err
				return
			}
		}
		if err := w.Flush(); err != nil {
			written <- err
			return
		}
		written <- stdin.Close()
	}()
	var answers []nodeAnswer
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var a nodeAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("node answer %d: %v: %s", len(answers), err, sc.Bytes())
		}
		answers = append(answers, a)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading node: %v", err)
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := <-written; err != nil {
		t.Fatalf("writing to node: %v (stderr: %s)", err, stderr.String())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if len(answers) != len(cases) {
		t.Fatalf("node answered %d cases of %d\n%s", len(answers), len(cases), stderr.String())
	}
	return answers
}

// sameJSON compares two JSON texts byte for byte, and shows a readable
// difference when they are not equal.
func sameJSON(want, got string) string {
	if want == got {
		return ""
	}
	var w, g any
	dw := json.NewDecoder(strings.NewReader(want))
	dw.UseNumber()
	dg := json.NewDecoder(strings.NewReader(got))
	dg.UseNumber()
	if dw.Decode(&w) != nil || dg.Decode(&g) != nil {
		return cmp.Diff(want, got)
	}
	if d := cmp.Diff(w, g); d != "" {
		return d
	}
	return fmt.Sprintf("same values, other bytes:\nwant %s\ngot  %s", want, got)
}

// htmlEscaped is s as Go's json.Marshal escapes it (<, >, &, U+2028,
// U+2029 inside strings), which JSON.stringify does not.
func htmlEscaped(s string) string {
	var b bytes.Buffer
	json.HTMLEscape(&b, []byte(s))
	return b.String()
}
