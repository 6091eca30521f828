// Command a2abench produces the figures of BENCHMARKS.md: what the client
// costs on top of raw a2a-go, side by side, and that it stays bounded.
//
//	a2abench e2e     [-n 100000] [-reps 5] [-caps default|open] [-ballast MiB] [-only raw|sdk|floor] [-cpuprofile f]
//	a2abench latency [-n 2000] [-pace 1ms] [-reps 3]
//	a2abench mem     [-n 1000000] [-reps 1] [-transport jsonrpc|rest]
//	a2abench follow  [-streams 10000] [-k 10] [-reps 1] [-transport jsonrpc|rest]
//	a2abench hostile [-mib 100,1024] [-raw-max 100]
//	a2abench serve   [-pattern 10000] [-k 10]
//
// Every subcommand but serve starts its peer, an agenttest.FrameServer, as a
// child process (`a2abench serve`), so that the measured process holds
// only the caller. e2e and latency run raw a2a-go and the SDK alternately
// in one process; mem and follow run each measurement in a fresh child
// process (peak RSS only grows), raw and SDK alternately, and print the
// figures side by side. Run with `go run ./client/internal/bench/cmd/a2abench`.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/client/internal/bench"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmds := map[string]func([]string) error{
		"serve": serve, "e2e": e2e, "latency": latency, "mem": mem, "follow": follow,
		"mem-one": memOne, "follow-one": followOne, "hostile": hostile, "hostile-one": hostileOne,
	}
	run, ok := cmds[os.Args[1]]
	if !ok {
		usage()
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "a2abench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: a2abench e2e|latency|mem|follow|hostile|serve [flags] (-h for the flags of each)")
	os.Exit(2)
}

// serve runs a FrameServer on 127.0.0.1 and prints its URL on stdout; POST
// /release releases the held subscriptions. It exits when stdin closes, so
// that it never outlives the parent.
func serve(args []string) error {
	fl := flag.NewFlagSet("serve", flag.ExitOnError)
	pattern := fl.Int("pattern", 0, "length of the trajectory the streams tile (0: 10 000)")
	k := fl.Int("k", 10, "working updates a subscription gets before it holds")
	_ = fl.Parse(args)
	fs := agenttest.NewFrameServer(*pattern)
	fs.FollowUpdates = *k
	mux := http.NewServeMux()
	mux.Handle("/", fs)
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, r *http.Request) { fs.Release() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	return (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

// child is a process of this binary.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// startServer starts `a2abench serve` and returns its URL.
func startServer(args ...string) (string, *child, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(exe, append([]string{"serve"}, args...)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		return "", nil, fmt.Errorf("server child: %w", err)
	}
	return strings.TrimSpace(line), &child{cmd, in}, nil
}

func (c *child) stop() {
	_ = c.stdin.Close()
	_ = c.cmd.Wait()
}

// runChild runs this binary with args and decodes the JSON line it prints
// last into v.
func runChild(v any, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return json.Unmarshal([]byte(lines[len(lines)-1]), v)
}

func pickTargets(url, names string) ([]bench.Target, error) {
	var out []bench.Target
	for _, t := range bench.Targets(url) {
		if slices.Contains(strings.Split(names, ","), t.Name()) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no transport among " + names + " (jsonrpc, rest)")
	}
	return out, nil
}

// spread is the median and range of xs.
type spread struct{ med, lo, hi float64 }

func spreadOf(xs []float64) spread {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s) == 0 {
		return spread{}
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return spread{med, s[0], s[len(s)-1]}
}

// format prints the median with f and the range around it in percent.
func (s spread) format(f string) string {
	return fmt.Sprintf(f+" (%+.0f%% / %+.0f%%)", s.med, pct(s.lo, s.med), pct(s.hi, s.med))
}

func pct(x, ref float64) float64 {
	if ref == 0 {
		return 0
	}
	return (x/ref - 1) * 100
}

func background() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Minute)
}

// served starts a FrameServer child and returns the context of the run,
// the child and the targets of the named transports on it; done stops
// the run and the child.
func served(transports string) (ctx context.Context, srv *child, targets []bench.Target, done func(), err error) {
	url, srv, err := startServer()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	targets, err = pickTargets(url, transports)
	if err != nil {
		srv.stop()
		return nil, nil, nil, nil, err
	}
	ctx, cancel := background()
	return ctx, srv, targets, func() { cancel(); srv.stop() }, nil
}

// oneReader opens the impl reader of one transport of the FrameServer at
// url, for a "-one" child; done closes it.
func oneReader(url, transport, impl string) (ctx context.Context, rd *bench.Reader, done func(), err error) {
	targets, err := pickTargets(url, transport)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := background()
	rd, err = bench.NewReader(ctx, targets[0], impl, nil)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return ctx, rd, func() { rd.Close(); cancel() }, nil
}
