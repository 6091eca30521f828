// Package readme checks README.md: its install step works on a fresh module
// and every Go snippet in it compiles against this checkout.
package readme

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// snippet says how one ```go block of the README is compiled: as the body
// of a function whose parameters are the names the block takes as given
// (ctx, the user's own functions), followed by uses of the names it
// declares and leaves for the reader's code. key is a line of the block.
type snippet struct {
	key    string
	params string
	uses   string
}

// snippets covers every ```go block of README.md, in order; a block that is
// not here fails the test, so that a new snippet is compiled too.
var snippets = []snippet{
	{key: `c, err := client.New(ctx, "https://agent.example")`,
		params: `ctx context.Context, forward func(schema.Op)`,
		uses:   `_, _, _, _ = err, answer, next, view`},
	{key: `l := client.NewLazy(ctx, "https://agent.example", 5*time.Second)`,
		params: `ctx context.Context`,
		uses:   `_, _ = s, err`},
	{key: `a, err := agenttest.New(agenttest.WithScripts(`,
		params: `ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool, rows, reply, question string, colleague *client.Client`,
		uses:   `_, _, _ = c, out, err`},
	{key: `started := relay.NewTaskSet(0)`,
		params: `ctx context.Context, c *client.Client, myPolicy relay.Authorizer, mux *http.ServeMux`,
		uses:   `_ = srv`},
	{key: `run := frontend.NewAGUIRun(writeSSE)`,
		params: `ctx context.Context, c *client.Client, writeSSE func(map[string]any) error, callID, msgID string, logIt func(client.Update), pending *frontend.PendingResponses`,
		uses:   `_ = res`},
	{key: `calls, err := pending.Respond(in.ThreadID, in.Resume[0].InterruptID)`,
		params: `ctx context.Context, c *client.Client, run *frontend.AGUIRun, in frontend.RunAgentInput, pending *frontend.PendingResponses`,
		uses:   ``},
	{key: `cs := frontend.NewChatStream()`,
		params: `ctx context.Context, c *client.Client, toolInputStart map[string]any, question, toolCallID, chatID string, pending *frontend.PendingResponses`,
		uses:   `_ = res`},
	{key: `st, err := redisstore.New(`,
		params: `ctx context.Context, s *client.Stream`,
		uses:   `_ = err`},
}

// imports are the packages a snippet may name.
var imports = map[string]string{
	"context":    "context",
	"fmt":        "fmt",
	"time":       "time",
	"http":       "net/http",
	"a2a":        "github.com/a2aproject/a2a-go/v2/a2a",
	"a2asrv":     "github.com/a2aproject/a2a-go/v2/a2asrv",
	"client":     "github.com/tfrs/a2a-progress/client",
	"agenttest":  "github.com/tfrs/a2a-progress/client/agenttest",
	"emit":       "github.com/tfrs/a2a-progress/envelope/emit",
	"schema":     "github.com/tfrs/a2a-progress/schema",
	"relay":      "github.com/tfrs/a2a-progress/relay",
	"frontend":   "github.com/tfrs/a2a-progress/relay/frontend",
	"redisstore": "github.com/tfrs/a2a-progress/relay/redisstore",
}

var fence = regexp.MustCompile("(?ms)^```(\\w*)\\n(.*?)^```")

// TestREADME runs the README's install step for the SDK (go mod edit, then
// go mod tidy) in a fresh module that points at this checkout, writes each
// Go snippet into it, and vets the module: every snippet must compile, with
// the one placeholder "{ … }" (your code) read as a loop body that uses
// its variables.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building the README's snippets")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var edit string
	var tidy bool
	var blocks []string
	for _, m := range fence.FindAllStringSubmatch(string(readme), -1) {
		switch m[1] {
		case "go":
			blocks = append(blocks, m[2])
		case "sh":
			for _, l := range strings.Split(m[2], "\n") {
				switch {
				case strings.HasPrefix(l, "go mod edit "):
					edit, _, _ = strings.Cut(l, "#")
				case edit != "" && strings.HasPrefix(l, "go mod tidy"):
					tidy = true
				}
			}
		}
	}
	if edit == "" || !tidy {
		t.Fatal("README.md: want the SDK's install step in a ```sh block: a `go mod edit` line, then `go mod tidy`")
	}

	dir := t.TempDir()
	// The module cache is the machine's (the checkout's dependencies are
	// there once it builds); the proxy is not asked.
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	gocmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			if bytes.Contains(out, []byte("GOPROXY=off")) {
				t.Skipf("go %s needs modules that are not in the module cache:\n%s", strings.Join(args, " "), out)
			}
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gocmd("mod", "init", "example.com/readme")
	// Offline, the checksum database cannot be asked: the checkout's
	// go.sum holds the hashes of every module the snippets need.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	// The README's line, with the clone it names (../a2a-progress) being
	// this checkout.
	args := strings.Fields(strings.ReplaceAll(edit, "../a2a-progress", root))
	gocmd(args[1:]...)

	used := make([]bool, len(snippets))
	for i, b := range blocks {
		k := -1
		for j, s := range snippets {
			if strings.Contains(b, s.key) {
				k = j
			}
		}
		if k < 0 {
			t.Errorf("README.md's Go block %d is not in snippets (add how it compiles):\n%s", i+1, b)
			continue
		}
		used[k] = true
		s := snippets[k]
		body := strings.ReplaceAll(b, "{ … }", "{ _, _ = u, err }")
		fn := fmt.Sprintf("func snippet%d(%s) {\n%s\n%s\n}\n", i+1, s.params, body, s.uses)
		var imp []string
		for name, path := range imports {
			if regexp.MustCompile(`\b` + name + `\.`).MatchString(fn) {
				imp = append(imp, fmt.Sprintf("\t%q\n", path))
			}
		}
		src := "package readme\n\nimport (\n" + strings.Join(imp, "") + ")\n\n" + fn
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("snippet%d.go", i+1)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, u := range used {
		if !u {
			t.Errorf("snippet %q is no longer in README.md", snippets[k].key)
		}
	}
	// The install step's go mod tidy: -e, since offline the tests of the
	// dependencies' dependencies (which tidy also reads) may not be in the
	// module cache; what the snippets build must be.
	gocmd("mod", "tidy", "-e")
	gocmd("vet", ".")
}
