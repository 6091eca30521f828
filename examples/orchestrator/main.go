// Command orchestrator is a small agent of its own that calls a remote A2A
// agent as one of its tools, and shows the remote agent's progress inside
// that tool call in its own front end — AG-UI (@ag-ui/client, CopilotKit) or
// the Vercel AI SDK's useChat:
//
//	go run ./examples/orchestrator --listen 127.0.0.1:8090 http://127.0.0.1:9999
//
// Its caller is scripted, with no LLM: for a user message it says a
// sentence, calls its tool ask_colleague with the user's text — the remote
// agent, through client.Client — and answers with the tool's result. A
// message of several lines asks one colleague per line, at the same time.
//
//   - POST /ag-ui takes AG-UI's RunAgentInput and streams the run: the
//     remote call is a sub-agent of the ask_colleague tool call
//     (frontend.AGUIRun).
//   - POST /api/chat takes useChat's request and streams a UI message
//     stream: the remote call's view grows as preliminary outputs of the
//     ask_colleague tool part (frontend.ChatStream); GET
//     /api/chat/{id}/stream resumes it after a page reload, or gives the
//     final message after the turn ended (for 10 minutes).
//
// Its runs outlive the browser (frontend.Runs, PROTOCOL.md §9.4): the remote
// calls run on the run's context, not the request's, so a lost connection
// leaves them running. Every AG-UI event carries a cursor (SSE id:), and
// GET or POST /ag-ui/threads/{thread}/runs/{run}/events with Last-Event-ID
// resumes the run after it (frontend.AGUILog). The user's explicit abort —
// DELETE /ag-ui/threads/{thread}/runs/{run}, DELETE /api/chat/{id}/stream —
// stops the run and cancels its remote tasks.
//
// It starts before its agent (client.NewLazy): until the agent responds, a
// remote call's tool result says the agent is not reachable yet.
//
// It serves loopback names only (the Host header must be localhost,
// 127.0.0.1 or [::1] with its port): a page on another name that resolves
// to 127.0.0.1 cannot drive it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/tfrs/a2a-progress/client"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8090", "address to serve on (loopback)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: orchestrator [--listen ADDR] <agent-url>\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *listen, flag.Arg(0)); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, listen, agentURL string) error {
	// It starts before its agent: until the agent's card could be read,
	// a remote call fails at once (its tool call says the agent is not
	// reachable yet), and the card is read again with backoff.
	c := client.NewLazy(ctx, agentURL, 5*time.Second)
	defer c.Close()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	o := newOrchestrator(ctx, lazyColleague{c}, ln.Addr().String())
	o.onUpdate = func(u client.Update) {
		// The same progress could go to a terminal; the log says when a
		// remote stream was cut and resumed.
		if u.Type == client.UpdateReconnect {
			log.Printf("orchestrator: task %q: resuming a cut stream (attempt %d): %q", u.TaskID, u.Attempt, u.Err)
		}
	}
	srv := &http.Server{Handler: o, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Printf("orchestrator: serving http://%s (POST /ag-ui, POST /api/chat) in front of %s", ln.Addr(), agentURL)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	o.wait()
	return nil
}
