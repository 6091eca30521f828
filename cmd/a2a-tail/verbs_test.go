package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// Arguments that cannot be right are usage errors (exit 2) that say why,
// before anything is asked of an agent.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"not a URL", []string{"agent.example.com", "5f0c"}, `agent URL "agent.example.com": want http://host[:port][/path] or https://…`},
		{"swapped", []string{"5f0c", "http://127.0.0.1:1"}, `"5f0c" is not an agent URL but "http://127.0.0.1:1" is: the agent URL comes first (<agent-url> <task-id>)`},
		{"follow swapped", []string{"follow", "5f0c", "http://127.0.0.1:1"}, "the agent URL comes first"},
		{"follow one argument", []string{"follow", "http://127.0.0.1:1"}, "follow: want <agent-url> <task-id>, got 1 argument(s)"},
		{"cancel swapped", []string{"cancel", "5f0c", "https://agent.example.com"}, "the agent URL comes first"},
		{"send to no URL", []string{"send", "localhost:8080", "hello"}, `agent URL "localhost:8080": want http://host[:port][/path] or https://…`},
		{"ftp", []string{"send", "ftp://agent.example.com", "hello"}, "want http://host"},
		{"retry-for and max-retries", []string{"--retry-for", "1m", "--max-retries", "3", "http://127.0.0.1:1", "5f0c"}, "--max-retries and --retry-for both bound the retries after a cut: give one"},
		{"negative retry-for", []string{"--retry-for", "-1s", "http://127.0.0.1:1", "5f0c"}, "--retry-for -1s: must not be negative"},
		{"lines", []string{"--lines", "0", "http://127.0.0.1:1", "5f0c"}, "--lines 0: want 1 to 1000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runCLI(t.Context(), testApp(""), tc.args...)
			if res.Code != exitUsage {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", res.Code, exitUsage, res.Stderr)
			}
			if !strings.Contains(res.Stderr, tc.stderr) || res.Stdout != "" {
				t.Errorf("stdout %q, stderr %q: want stderr to say %q", res.Stdout, res.Stderr, tc.stderr)
			}
		})
	}
}

// follow is the bare form, named: the same view and verdict for a task.
func TestFollowVerb(t *testing.T) {
	srv := startCallee(t)
	url := srv.CardURL(agenttest.V1)
	async := runCLI(t.Context(), testApp(""), "send", "--async", url, agenttest.RealisticName)
	id := strings.TrimPrefix(strings.TrimSpace(async.Stderr), "a2a-tail: task ")
	if async.Code != exitOK || !uuidRE.MatchString(id) {
		t.Fatalf("send --async: exit %d, stderr %q", async.Code, async.Stderr)
	}
	bare := runCLI(t.Context(), testApp(""), url, id)
	verb := runCLI(t.Context(), testApp(""), "follow", url, id)
	if bare.Code != exitOK || verb.Code != exitOK {
		t.Fatalf("exit %d (bare) and %d (follow); stderr %q, %q", bare.Code, verb.Code, bare.Stderr, verb.Stderr)
	}
	if diff := cmp.Diff(bare, verb); diff != "" {
		t.Errorf("follow differs from the bare form (-bare +follow):\n%s", diff)
	}
	if !strings.Contains(verb.Stdout, "\n✓ completed: "+agenttest.RealisticReply+"\n") {
		t.Errorf("follow shows no completed verdict:\n%s", verb.Stdout)
	}
}

// cancel stops a running task; a follower of it then ends canceled. An
// unknown task is exit 5, said on stderr.
func TestCancelVerb(t *testing.T) {
	held := agenttest.Script{Name: "held", Steps: []agenttest.Step{
		{Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 1, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "waiting"}}},
		{Gate: "never", Envelope: &envelope.Envelope{V: 1, Kind: envelope.KindText, Seq: 2, Status: envelope.StatusRunning, Payload: envelope.Text{Text: "never"}}},
	}, Final: a2a.TaskStateCompleted, FinalText: "not reached"}
	srv := startCallee(t, held)
	url := srv.CardURL(agenttest.V1)
	ctx, cancel := context.WithTimeout(t.Context(), testdep.Budget(time.Minute))
	defer cancel()
	c, err := client.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("held")))
	if err != nil {
		t.Fatal(err)
	}
	res := runCLI(ctx, testApp(""), "cancel", url, string(id))
	if want := (cliResult{Code: exitOK, Stdout: "task " + string(id) + ": canceled\n"}); !cmp.Equal(want, res) {
		t.Errorf("cancel (-want +got):\n%s", cmp.Diff(want, res))
	}
	follow := runCLI(ctx, testApp(""), "follow", url, string(id))
	if follow.Code != exitFailed || !strings.HasPrefix(lastLine(follow.Stdout), "✗ canceled") {
		t.Errorf("follow after cancel: exit %d, last line %q", follow.Code, lastLine(follow.Stdout))
	}
	unknown := runCLI(ctx, testApp(""), "cancel", url, "no-such-task")
	if unknown.Code != exitNotFound || unknown.Stdout != "" || !strings.Contains(unknown.Stderr, "not found") {
		t.Errorf("cancel of an unknown task: %+v, want exit 5 and the reason on stderr", unknown)
	}
}

// The messages after an interrupt and after a cut name the exact command
// that goes on.
func TestNextCommand(t *testing.T) {
	srv := startCallee(t,
		ending("input", a2a.TaskStateInputRequired, "which region?"),
		agenttest.Trajectory(3, agenttest.Named("silent"), agenttest.EndIn("")))
	url := srv.CardURL(agenttest.V1)
	asked := runCLI(t.Context(), testApp(""), "send", url, "input")
	id := uuidRE.FindString(asked.Stderr)
	if asked.Code != exitInterrupted || id == "" {
		t.Fatalf("exit %d, stderr %q", asked.Code, asked.Stderr)
	}
	want := "a2a-tail: task " + id + "\n" +
		"a2a-tail: the agent waits for your response: a2a-tail send --task " + id + " " + url + ` "<your response>"` + "\n"
	if diff := cmp.Diff(want, asked.Stderr); diff != "" {
		t.Errorf("stderr after an interrupt (-want +got):\n%s", diff)
	}
	cut := runCLI(t.Context(), testApp(""), "send", "--max-retries", "0", url, "silent")
	id = uuidRE.FindString(cut.Stderr)
	if cut.Code != exitRuntime || !strings.Contains(cut.Stderr, "a2a-tail: the turn could not be followed to its end. Follow it again: a2a-tail "+url+" "+id+"\n") {
		t.Errorf("after a cut: exit %d, stderr %q", cut.Code, cut.Stderr)
	}
}

// Counts in the live header are singular for one.
func TestLiveHeaderPlurals(t *testing.T) {
	term := &vt{cols: 80, rows: 10}
	f := newLiveFeed(t, term, 80, 10)
	f.send(envelope.Envelope{Kind: envelope.KindText, Seq: 1, Payload: envelope.Text{Text: "one"}})
	f.finish("done")
	if got := term.screen()[0]; got != "task task-1 · completed · 1 block" {
		t.Errorf("header %q, want %q", got, "task task-1 · completed · 1 block")
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A follower whose agent went away gives up with the cause said once,
// and the command that follows the task again.
func TestAgentGoneCauseOnce(t *testing.T) {
	srv, err := agenttest.New()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := srv.Endpoint(a2a.TransportProtocolJSONRPC, agenttest.V1).URL
	srv.Close() // its port now refuses connections
	res := runCLI(t.Context(), testApp(""), "--transport", "jsonrpc", "--max-retries", "2", endpoint, "some-task")
	if res.Code != exitRuntime {
		t.Fatalf("exit %d, want %d; stdout %q stderr %q", res.Code, exitRuntime, res.Stdout, res.Stderr)
	}
	if n := strings.Count(res.Stdout, "connection refused"); n != 1 || !strings.HasPrefix(res.Stdout, "✗ incomplete: ") {
		t.Errorf("the verdict says the cause %d times, want once:\n%s", n, res.Stdout)
	}
	if n := strings.Count(res.Stderr, "a2a-tail: stream cut ("); n != 1 {
		t.Errorf("%d cut notices for one group of tries, want 1:\n%s", n, res.Stderr)
	}
	if want := "a2a-tail: the turn could not be followed to its end. Follow it again: a2a-tail " + endpoint + " some-task\n"; !strings.HasSuffix(res.Stderr, want) {
		t.Errorf("stderr %q, want it to end with %q", res.Stderr, want)
	}
}
