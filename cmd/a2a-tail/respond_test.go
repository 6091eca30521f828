package main

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// interrupted runs a turn of script "input" through the library and
// returns its task and context ids: the task waits for input.
func interrupted(t *testing.T, srv *agenttest.Agent) (task, contextID string) {
	t.Helper()
	ctx := t.Context()
	c, err := client.New(ctx, srv.CardURL(agenttest.V1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.SendText(ctx, "input")
	if err != nil {
		t.Fatal(err)
	}
	out, err := st.Run(func(client.Update) error { return nil })
	if err != nil || out.Interrupt == nil {
		t.Fatalf("first turn: %s %v, want an interrupt", out.State, err)
	}
	return string(out.TaskID), out.ContextID
}

// send --task responds to a task that waits for input, with or without its
// context id, over a card or a forced transport and version; a task the
// agent does not know exits 5, on send --task as on follow.
func TestSendTask(t *testing.T) {
	t.Parallel()
	srv := startCallee(t,
		ending("input", a2a.TaskStateInputRequired, "which region?"),
		ending("completed", a2a.TaskStateCompleted, "the answer"),
	)
	card := srv.CardURL(agenttest.V1)
	rest03 := srv.Endpoint(a2a.TransportProtocolHTTPJSON, agenttest.V0).URL
	grpc10 := srv.Endpoint(a2a.TransportProtocolGRPC, agenttest.V1).URL
	tests := []struct {
		name string
		// args builds the command line from a fresh interrupted task.
		args    func(task, ctx string) []string
		code    int
		verdict string // the last line of stdout starts with it
		stdout  string // contained in stdout
		errEnd  string // on stderr and not on stdout
		stderr  string // contained in stderr
	}{
		{name: "task", args: func(task, _ string) []string { return []string{"send", "--task", task, card, "completed"} },
			code: exitOK, verdict: "✓ completed: the answer"},
		{name: "task and context", args: func(task, ctx string) []string {
			return []string{"send", "--task", task, "--context", ctx, card, "completed"}
		}, code: exitOK, verdict: "✓ completed: the answer"},
		{name: "rest 0.3 without a card", args: func(task, _ string) []string {
			return []string{"send", "--transport", "rest", "--protocol", "0.3", "--task", task, rest03, "completed"}
		}, code: exitOK, verdict: "✓ completed: the answer"},
		{name: "grpc 1.0 without a card", args: func(task, _ string) []string {
			return []string{"send", "--transport", "grpc", "--protocol", "1.0", "--grpc-plaintext", "--task", task, grpc10, "completed"}
		}, code: exitOK, verdict: "✓ completed: the answer"},
		{name: "context alone starts a new task there", args: func(_, ctx string) []string {
			return []string{"send", "--context", ctx, card, "completed"}
		}, code: exitOK, verdict: "✓ completed: the answer"},
		{name: "asked again", args: func(task, _ string) []string { return []string{"send", "--task", task, card, "input"} },
			code: exitInterrupted, verdict: "  respond on task <id>"},
		{name: "unknown task", args: func(string, string) []string { return []string{"send", "--task", "no-such-task", card, "completed"} },
			code: exitNotFound, stderr: "task not found"},
		{name: "unknown task, context given", args: func(_, ctx string) []string {
			return []string{"send", "--task", "no-such-task", "--context", ctx, card, "completed"}
		}, code: exitNotFound, stderr: "✗ error: client: send: ", errEnd: "task not found"},
		{name: "follow an unknown task", args: func(string, string) []string { return []string{card, "no-such-task"} },
			code: exitNotFound, stderr: `✗ error: client: task "no-such-task": `, errEnd: "task not found"},
		{name: "follow an unknown task over rest 0.3", args: func(string, string) []string {
			return []string{"--transport", "rest", "--protocol", "0.3", rest03, "no-such-task"}
		}, code: exitNotFound, stderr: `✗ error: client: task "no-such-task": `, errEnd: "task not found"},
		{name: "task with async", args: func(task, _ string) []string { return []string{"send", "--async", "--task", task, card, "completed"} },
			code: exitUsage, stderr: "--task and --async"},
		{name: "protocol without transport", args: func(task, _ string) []string { return []string{"send", "--protocol", "0.3", card, "completed"} },
			code: exitUsage, stderr: "--protocol needs --transport"},
		{name: "bad protocol", args: func(task, _ string) []string {
			return []string{"send", "--transport", "rest", "--protocol", "2.0", card, "completed"}
		}, code: exitUsage, stderr: `--protocol "2.0": want 1.0 or 0.3`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task, ctx := interrupted(t, srv)
			res := runCLI(t.Context(), testApp(""), tc.args(task, ctx)...)
			if res.Code != tc.code {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", res.Code, tc.code, res.Stderr)
			}
			if tc.verdict != "" {
				lines := strings.Split(strings.TrimRight(normalise(res.Stdout), "\n"), "\n")
				if last := lines[len(lines)-1]; !strings.HasPrefix(last, tc.verdict) {
					t.Errorf("last line = %q, want it to start with %q\nstdout:\n%s", last, tc.verdict, res.Stdout)
				}
			}
			if !strings.Contains(res.Stdout, tc.stdout) {
				t.Errorf("stdout = %q, want it to contain %q", res.Stdout, tc.stdout)
			}
			if !strings.Contains(res.Stderr, tc.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", res.Stderr, tc.stderr)
			}
			if tc.errEnd != "" {
				// "Not found" is an error, not a verdict: stderr only.
				if !strings.Contains(res.Stderr, tc.errEnd) || strings.Contains(res.Stdout, tc.errEnd) {
					t.Errorf("stdout %q, stderr %q: want %q on stderr only", res.Stdout, res.Stderr, tc.errEnd)
				}
			}
		})
	}
}

// The answered turn is a turn of the interrupted task: the agent's task
// has the answer in its history, after the first turn's message.
func TestSendTaskContinuesTheTask(t *testing.T) {
	srv := startCallee(t,
		ending("input", a2a.TaskStateInputRequired, "which region?"),
		ending("completed", a2a.TaskStateCompleted, "the answer"),
	)
	task, contextID := interrupted(t, srv)
	res := runCLI(t.Context(), testApp(""), "send", "--task", task, srv.CardURL(agenttest.V1), "completed")
	if res.Code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	c, err := client.New(t.Context(), srv.Endpoint(a2a.TransportProtocolGRPC, agenttest.V1).URL, client.WithTransport(a2a.TransportProtocolGRPC),
		client.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.A2A().GetTask(context.WithoutCancel(t.Context()), &a2a.GetTaskRequest{ID: a2a.TaskID(task)})
	if err != nil {
		t.Fatal(err)
	}
	type userMsg struct{ Text, Context string }
	var users []userMsg
	for _, m := range got.History {
		if m.Role == a2a.MessageRoleUser {
			users = append(users, userMsg{m.Parts[0].Text(), m.ContextID})
		}
	}
	// The first message was sent without a context: the client gave it
	// one (so that a send cut before its first event can be found again),
	// and the answer continues in it.
	want := []userMsg{{"input", contextID}, {"completed", contextID}}
	if d := cmp.Diff(want, users); d != "" {
		t.Errorf("user messages of the task (-want +got):\n%s", d)
	}
	if d := cmp.Diff(a2a.TaskStateCompleted, got.Status.State); d != "" {
		t.Errorf("task state (-want +got):\n%s", d)
	}
}
