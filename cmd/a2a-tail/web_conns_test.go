package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/testdep"
)

// dialChildEnv makes this test binary a process that opens connections
// to an address and holds them: "<addr> <n> [<path> <host>]". With a path,
// each connection GETs it (Host: host) and waits for a 200 status line: a
// reader of an event stream. It answers "ready\n" (or the error) on stdout
// and holds them until its stdin closes. The connections are in a child
// process because one process here may hold only 20 000 descriptors
// (RLIMIT_NOFILE, which an unprivileged test cannot raise), and the
// server needs its own.
const dialChildEnv = "A2A_TAIL_DIAL_CHILD"

func init() {
	spec := os.Getenv(dialChildEnv)
	if spec == "" {
		return
	}
	var addr, path, host string
	var n int
	if k, err := fmt.Sscan(spec, &addr, &n, &path, &host); k != 2 && k != 4 {
		fmt.Println("bad", dialChildEnv, err)
		os.Exit(2)
	}
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Printf("dial %d: %v\n", len(conns), err)
			os.Exit(1)
		}
		if path != "" {
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", path, host)
			line, err := bufio.NewReader(c).ReadString('\n')
			if line != "HTTP/1.1 200 OK\r\n" {
				fmt.Printf("reader %d: %q %v\n", len(conns), line, err)
				os.Exit(1)
			}
		}
		conns = append(conns, c)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// portChurn keeps the tests that free a port and bind it again (an agent
// down and up, Redis restarted, --listen on a port found free) from
// running while one holds a thousand connections or more: each of those
// takes an ephemeral port, and can take the freed one. No test does both.
// TestWebManyIdleConnections and TestWebBusyTaskResponds503 stay serial,
// before the parallel tests: they hold it for seconds.
var portChurn sync.RWMutex

// reusesPort says that t frees a port and binds it again (see portChurn).
func reusesPort(t *testing.T) {
	portChurn.RLock()
	t.Cleanup(portChurn.RUnlock)
}

// holdConns opens n connections to addr from a child process and returns
// once all are open; they close when the test ends. get, if given, is the
// path and Host each connection GETs (see dialChildEnv).
func holdConns(t *testing.T, addr string, n int, get ...string) {
	t.Helper()
	portChurn.Lock()
	t.Cleanup(portChurn.Unlock) // after the child closed its connections
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %s", dialChildEnv, addr, n, strings.Join(get, " ")))
	if line := testdep.Start(t, "a child holding connections", cmd, testdep.Stdout).Next(); line != "ready" {
		t.Fatalf("child holding %d connections: %q", n, line)
	}
}

// 10 000 connections opened and left idle (over twice the cap) cost the
// server at most its cap of connections, and GET / still answers.
func TestWebManyIdleConnections(t *testing.T) {
	const n = 10000
	g := startGuarded(t, webFlags{listen: "127.0.0.1:0"}, true)
	host := "127.0.0.1:" + g.port
	holdConns(t, g.addr, n)
	if open := g.cc.conns(); open > webMaxConns {
		t.Errorf("the server holds %d connections, want at most %d", open, webMaxConns)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get("http://" + host + "/")
	if err != nil {
		t.Fatalf("GET / with %d idle connections open: %v", n, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<html") {
		t.Errorf("GET /: %d %.100q", resp.StatusCode, body)
	}
}

// A task with as many readers as the relay allows (1 024): the next reader
// gets the relay's 503 with Retry-After and its reason — what the page
// counts down from — not a connection the server's cap closed (the cap
// was 1 024 too, and a browser showed a failed load).
func TestWebBusyTaskResponds503(t *testing.T) {
	const readers = 1024 // the relay's cap of readers per task
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(2*time.Minute))
	defer cancel()
	held := agenttest.Script{Name: "held", Steps: []agenttest.Step{textStep(1, "working"),
		{Gate: "held-go", Envelope: textStep(2, "done").Envelope}}, Final: a2a.TaskStateCompleted, FinalText: "ok"}
	agent, c := pageAgent(t, ctx, held)
	defer agent.Release("held-go")
	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("held")))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newWebPolicy(webFlags{listen: "127.0.0.1:0", anyTask: true}, ln.Addr().String(), true)
	if err != nil {
		t.Fatal(err)
	}
	ws := newWebServer(ctx, client.LazyOf(c), p)
	srv := newWebHTTPServer(ws, newConnCap(webMaxConns))
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	defer ws.Close()
	path := "/tasks/" + string(id) + "/events"
	holdConns(t, ln.Addr().String(), readers, path, ln.Addr().String())

	client := &http.Client{Timeout: testdep.Budget(10 * time.Second)}
	resp, err := client.Get("http://" + ln.Addr().String() + path)
	if err != nil {
		t.Fatalf("reader %d: %v", readers+1, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Retry-After"), strings.TrimSpace(string(body)))
	if d := cmp.Diff(`503 2 {"error":"relay: too many subscribers for this task"}`, got); d != "" {
		t.Errorf("reader %d (-want +got):\n%s", readers+1, d)
	}
}
