package redisstore_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// go-redis's dialer and the test's redis-server are waited for by the
	// tests themselves; anything else left running is a leak.
	goleak.VerifyTestMain(m)
}

// redisServer is a real redis-server for one test, on a loopback port of
// its own, without persistence — so that a kill and a start is a Redis that
// restarted empty.
type redisServer struct {
	t    *testing.T
	port int
	args []string
	cmd  *exec.Cmd
	exit chan struct{}
}

// startRedis starts redis-server with args added to the test's own (e.g.
// "--maxmemory", "2mb"). Without redis-server the test skips, saying why,
// unless CI requires it (A2A_PROGRESS_REQUIRE_INTEROP).
func startRedis(t *testing.T, args ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("A2A_PROGRESS_REQUIRE_INTEROP") != "" {
			t.Fatalf("redis-server is required (A2A_PROGRESS_REQUIRE_INTEROP is set): %v", err)
		}
		t.Skipf("redis-server not installed (apt-get install redis-server; .ci/run does): %v", err)
	}
	_ = bin
	r := &redisServer{t: t, args: args}
	for attempt := 0; ; attempt++ {
		r.port = freePort(t)
		err := r.start()
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("redis-server: %v", err)
		}
	}
	t.Cleanup(r.kill)
	return r
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs redis-server on r.port and returns once it says it accepts
// connections (its own log line: the signal, not a sleep).
func (r *redisServer) start() error {
	args := append([]string{"--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "", "--loglevel", "notice"}, r.args...)
	cmd := exec.Command("redis-server", args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	ready := make(chan struct{})
	exit := make(chan struct{})
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if log.Len() < 8<<10 {
				log.WriteString(sc.Text() + "\n")
			}
			if !signalled && strings.Contains(sc.Text(), "Ready to accept connections") {
				signalled = true
				close(ready)
			}
		}
		_ = cmd.Wait()
		close(exit)
	}()
	select {
	case <-ready:
		r.cmd, r.exit = cmd, exit
		return nil
	case <-exit:
		return fmt.Errorf("exited before it was ready:\n%s", log.String())
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
		return fmt.Errorf("not ready after 20s")
	}
}

// URL is the redis:// URL of the server.
func (r *redisServer) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.port) }

// kill stops the server at once (SIGKILL: no goodbye to clients) and waits
// for it to exit.
func (r *redisServer) kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.exit
	r.cmd = nil
}

// restart starts the server again, empty, on the same port.
func (r *redisServer) restart() {
	r.t.Helper()
	if err := r.start(); err != nil {
		r.t.Fatalf("redis-server restart: %v", err)
	}
}
