// Package redistest runs a real redis-server for tests: its own process on
// a random loopback port, without persistence, so that Kill and Restart
// give a Redis that went away and came back empty. Never a mock: the
// tests that use it check behaviour under restarts, maxmemory and blocking
// reads.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// Server is a real redis-server for one test, on a loopback port of
// its own, without persistence — so that a kill and a start is a Redis that
// restarted empty.
type Server struct {
	tb testing.TB
	// Port is the loopback port it listens on.
	Port int
	bin  string // redis-server's path
	args []string
	cmd  *exec.Cmd
	exit chan struct{}
}

// Start starts redis-server with args added to the test's own (e.g.
// "--maxmemory", "2mb"). Without redis-server the test skips, saying why,
// unless CI requires it ([testdep.SkipOrFail]).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	r := &Server{tb: t, bin: testdep.RedisServer(t, "this test"), args: args}
	for attempt := 0; ; attempt++ {
		r.Port = freePort(t)
		err := r.start()
		if err == nil {
			break
		}
		if attempt == 4 {
			t.Fatalf("redis-server: %v", err)
		}
	}
	t.Cleanup(r.Kill)
	return r
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs redis-server on r.Port and returns once it says it accepts
// connections (its own log line: the signal, not a sleep).
func (r *Server) start() error {
	args := append([]string{"--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", "", "--loglevel", "notice"}, r.args...)
	cmd := exec.Command(r.bin, args...)
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
	case <-time.After(testdep.Budget(20 * time.Second)):
		_ = cmd.Process.Kill()
		<-exit
		return fmt.Errorf("not ready after %v", testdep.Budget(20*time.Second))
	}
}

// URL is the redis:// URL of the server.
func (r *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port) }

// Kill stops the server at once (SIGKILL: no goodbye to clients) and waits
// for it to exit.
func (r *Server) Kill() {
	if r.cmd == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.exit
	r.cmd = nil
}

// Restart starts the server again, empty, on the same port.
func (r *Server) Restart() {
	r.tb.Helper()
	if err := r.start(); err != nil {
		r.tb.Fatalf("redis-server restart: %v", err)
	}
}
