package main

import (
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
)

var flagRE = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z-]+)`)

// helpFlags returns the flags a command's --help lists.
func helpFlags(t *testing.T, args ...string) []string {
	t.Helper()
	res := runCLI(t.Context(), testApp(""), append(args, "--help")...)
	if res.Code != exitOK {
		t.Fatalf("%v --help: exit %d, stderr:\n%s", args, res.Code, res.Stderr)
	}
	var names []string
	for _, m := range flagRE.FindAllStringSubmatch(res.Stdout, -1) {
		names = append(names, m[1])
	}
	return names
}

// Each command's --help lists the flags that apply to it, and only those.
func TestHelpListsOnlyFlagsThatApply(t *testing.T) {
	output := []string{"color", "lines", "max-blocks", "max-stream-keys", "max-turn-bytes", "output", "timestamps", "verbose"}
	agent := []string{"allow-host", "auth", "grpc-plaintext", "idle-timeout", "max-retries", "protocol", "retry-for", "svc-param", "tenant", "transport"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"follow", nil, join(output, agent, []string{"version"})}, // the root command: --version
		{"send", []string{"send"}, join(output, agent, []string{"async", "context", "task"})},
		{"replay", []string{"replay"}, join(output, []string{"wire"})},
		{"query", []string{"query"}, join(output, []string{"auth", "conversation-id", "idle-timeout", "svc-param"})},
		{"demo", []string{"demo"}, join(output, []string{"idle-timeout", "listen", "max-retries", "pace", "protocol", "retry-for", "transport", "web"})},
		{"follow verb", []string{"follow"}, join(output, agent)},
		{"cancel", []string{"cancel"}, join([]string{"allow-host", "auth", "grpc-plaintext", "idle-timeout", "protocol", "svc-param", "tenant", "transport"})},
		{"web", []string{"web"}, join(agent, []string{"allow-remote", "any-task", "listen", "redis", "task", "token", "verbose", "web-host"})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := helpFlags(t, tc.args...)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("flags of %v --help (-want +got):\n%s", tc.args, d)
			}
		})
	}
}

// join returns the sorted union of the lists plus help (cobra's --help
// sorts the flags).
func join(lists ...[]string) []string {
	set := map[string]bool{"help": true}
	for _, l := range lists {
		for _, s := range l {
			set[s] = true
		}
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// A flag of another command is a usage error, not silently ignored.
func TestFlagOfAnotherCommand(t *testing.T) {
	for _, args := range [][]string{
		{"replay", "--transport", "rest", "-"},
		{"replay", "--max-retries", "3", "-"},
		{"query", "--tenant", "t", "http://127.0.0.1:1", "hi"},
		{"--transport", "rest", "replay", "-"},
	} {
		res := runCLI(t.Context(), testApp(""), args...)
		if res.Code != exitUsage {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", args, res.Code, exitUsage, res.Stderr)
		}
	}
}

// The CLI's default for retries is the library's.
func TestRetryDefault(t *testing.T) {
	root := testApp("").rootCommand()
	for _, args := range [][]string{nil, {"send"}, {"demo"}} {
		cmd, _, err := root.Find(args)
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup("max-retries")
		if f == nil {
			t.Fatalf("%v: no --max-retries", args)
		}
		if d := cmp.Diff(strconv.Itoa(client.DefaultMaxAttempts), f.DefValue); d != "" {
			t.Errorf("%v --max-retries default (-library +CLI):\n%s", args, d)
		}
	}
}
