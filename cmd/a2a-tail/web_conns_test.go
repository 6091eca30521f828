package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dialChildEnv makes this test binary a process that opens connections
// to an address and holds them: "<addr> <n>". It answers "ready\n" (or the
// error) on stdout and holds them until its stdin closes. The connections
// are spread over child processes because one process here may hold only
// 20 000 descriptors (RLIMIT_NOFILE, which an unprivileged test cannot
// raise) and the server needs some of its own.
const dialChildEnv = "A2A_TAIL_DIAL_CHILD"

func init() {
	spec := os.Getenv(dialChildEnv)
	if spec == "" {
		return
	}
	var addr string
	var n int
	if _, err := fmt.Sscan(spec, &addr, &n); err != nil {
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
		conns = append(conns, c)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// holdConns opens n connections to addr from child processes of at most
// per each, and returns once all are open; they close when the test ends.
func holdConns(t *testing.T, addr string, n, per int) {
	t.Helper()
	for n > 0 {
		k := min(n, per)
		n -= k
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d", dialChildEnv, addr, k))
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
		t.Cleanup(func() {
			stdin.Close()
			_ = cmd.Wait()
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if line != "ready\n" {
			t.Fatalf("child holding %d connections: %q %v", k, line, err)
		}
	}
}

// 20 000 connections opened and left idle cost the server at most its cap
// of connections, and GET / still answers.
func TestWebManyIdleConnections(t *testing.T) {
	const n = 20000
	g := startGuarded(t, webFlags{listen: "127.0.0.1:0"}, true)
	host := "127.0.0.1:" + g.port
	holdConns(t, g.addr, n, n/2)
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
