package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// jsAgentDir is the node project of the JS SDK callee, relative to this
// package (go test runs in the package directory).
const jsAgentDir = "jsagent"

// startTimeout bounds the wait for the server's port line; stopTimeout the
// wait for its exit after its stdin was closed.
const (
	startTimeout = 30 * time.Second
	stopTimeout  = 10 * time.Second
)

// jsAgent is a running jsagent/server.mjs.
type jsAgent struct {
	// Base is http://127.0.0.1:<port>; the agent card is at
	// Base/.well-known/agent-card.json.
	Base string
}

// startJSAgent starts the JS SDK callee for the test and stops it (and
// waits for it) when the test ends. It skips the test when node is not on
// PATH or the SDK cannot be installed ([testdep.NPM]).
func startJSAgent(t *testing.T) *jsAgent {
	t.Helper()
	node := testdep.NPM(t, jsAgentDir, "the interop test against the A2A JS SDK")

	ctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, "server.mjs", "0")
	cmd.Dir = jsAgentDir
	// The server exits when its stdin reaches EOF: closing our end is the
	// polite stop, and a test binary that dies takes the server with it.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		kill()
		t.Fatal(err)
	}
	out := &portLine{found: make(chan string, 1)}
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, logs
	if err := cmd.Start(); err != nil {
		kill()
		t.Fatalf("start node: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(testdep.Budget(stopTimeout)):
			t.Errorf("the JS agent did not exit within %v of its stdin closing; killing it", stopTimeout)
			kill()
			<-exited
		}
		kill()
		if waitErr != nil && !t.Failed() {
			t.Errorf("the JS agent exited with %v; its stderr:\n%s", waitErr, logs)
		}
		if t.Failed() {
			t.Logf("the JS agent's stderr:\n%s", logs)
		}
	})

	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case port := <-out.found:
		return &jsAgent{Base: "http://127.0.0.1:" + port}
	case <-exited:
		t.Fatalf("the JS agent exited before listening (%v); its stderr:\n%s", waitErr, logs)
	case <-timer.C:
		t.Fatalf("the JS agent printed no port line within %v; its stderr:\n%s", startTimeout, logs)
	}
	return nil
}

// portLine is the server's stdout: it reports the port of the first line,
// "port <n>", and keeps the rest for nobody (the server prints nothing
// else there).
type portLine struct {
	mu    sync.Mutex
	buf   []byte
	done  bool
	found chan string
}

func (p *portLine) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return len(b), nil
	}
	p.buf = append(p.buf, b...)
	line, _, ok := bytes.Cut(p.buf, []byte("\n"))
	if !ok {
		return len(b), nil
	}
	p.done = true
	port, ok := strings.CutPrefix(string(line), "port ")
	if n, err := strconv.Atoi(port); !ok || err != nil || n <= 0 || n > 65535 {
		// Not a port: let the start time out with the stderr in the message.
		return len(b), nil
	}
	p.found <- port
	return len(b), nil
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec and
// the test reading it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// cardInterface is an entry of the card's supportedInterfaces, read with
// encoding/json on purpose: the card is checked on the wire, not through
// the a2a-go parser that the client uses.
type cardInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// name is the interface as the tests name it: "JSONRPC-1.0",
// "HTTP+JSON-0.3".
func (c cardInterface) name() string { return c.ProtocolBinding + "-" + c.ProtocolVersion }

// client is a client forced onto this interface (client.WithTransport
// takes the interface URL, not the card), closed when the test ends.
func (c cardInterface) client(ctx context.Context, t *testing.T) *client.Client {
	t.Helper()
	cl, err := client.New(ctx, c.URL,
		client.WithTransport(a2a.TransportProtocol(c.ProtocolBinding)),
		client.WithProtocolVersion(a2a.ProtocolVersion(c.ProtocolVersion)))
	if err != nil {
		t.Fatalf("client.New(%s): %v", c.name(), err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// interfaces fetches the agent card and returns its interfaces.
func (a *jsAgent) interfaces(ctx context.Context) ([]cardInterface, error) {
	// A transport of our own, closed after, so that no idle connection
	// outlives the test (goleak).
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.Base+"/.well-known/agent-card.json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("agent card: %s: %s", resp.Status, body)
	}
	var card struct {
		SupportedInterfaces []cardInterface `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, fmt.Errorf("agent card: %w", err)
	}
	if len(card.SupportedInterfaces) == 0 {
		return nil, errors.New("agent card: no supportedInterfaces")
	}
	return card.SupportedInterfaces, nil
}
