// Package chaintest runs a chain of agents on 127.0.0.1 for a test of
// the nesting extension (PROTOCOL.md §10): A (the test, or a2a-tail) asks
// B; B, a Go agent on a2asrv that uses package emit, answers by asking C
// through package client and forwarding C's progress under its
// ask_colleague call; C plays [Script]. Both are client/agenttest agents,
// so either hop can be cut (agenttest.Agent.CutAfter).
package chaintest

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/envelope/emit"
)

// The names of the chain.
const (
	// AskTool is the tool B's call of C is named.
	AskTool = "ask_colleague"
	// AskID is the id (and stream key) of B's call of C.
	AskID = "ask-1"
	// ScriptName is the text B sends C: C plays Script for it.
	ScriptName = "colleague"
	// Reply is C's answer; B answers A with "B: " + Reply.
	Reply = "the order shipped on Monday"
)

// Script is what C does: thinking, a search with two chunks of output, a
// lookup that C itself forwarded from an agent further down (its blocks
// carry a parent, so A sees three levels), a text block, and the reply.
func Script() agenttest.Script {
	env := func(key, parent string, seq int64, status envelope.Status, p envelope.Payload) agenttest.Step {
		return agenttest.Step{Envelope: &envelope.Envelope{V: 1, Kind: p.Kind(), StreamKey: key, Seq: seq,
			Status: status, Payload: p, Parent: parent}}
	}
	search := envelope.ToolCall{Tool: "search", ToolCallID: "s1"}
	lookup := envelope.ToolCall{Tool: "lookup", ToolCallID: "d1"}
	return agenttest.Script{
		Name: ScriptName,
		Steps: []agenttest.Step{
			env("", "", 1, envelope.StatusRunning, envelope.Thinking{Text: "C: which order?"}),
			env("s1", "", 2, envelope.StatusRunning, search),
			env("s1", "", 3, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "search", ToolCallID: "s1", Chunk: "order 42\n"}),
			env("fw:s1:d1", "s1", 4, envelope.StatusRunning, lookup),
			env("fw:s1:d1", "s1", 5, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "lookup", ToolCallID: "d1", Chunk: "shipped\n"}),
			env("fw:s1:d1", "s1", 6, envelope.StatusDone, lookup),
			env("s1", "", 7, envelope.StatusRunning, envelope.ToolOutputAppend{Tool: "search", ToolCallID: "s1", Chunk: "status: shipped\n"}),
			env("s1", "", 8, envelope.StatusDone, search),
			env("", "", 9, envelope.StatusRunning, envelope.Text{Text: "C: found it"}),
		},
		Final:     a2a.TaskStateCompleted,
		FinalText: Reply,
	}
}

// Chain is B and C, running.
type Chain struct {
	// B is the agent A asks: its URL is what a caller (client.New,
	// a2a-tail) takes.
	B *agenttest.Agent
	// C is the agent B asks.
	C *agenttest.Agent
}

// Start starts C, then B asking C with a client built with opts (a test
// wants fast retries, so that a cut on the B→C hop resumes quickly).
func Start(opts ...client.Option) (*Chain, error) {
	c, err := agenttest.New(agenttest.WithScripts(Script()))
	if err != nil {
		return nil, err
	}
	b, err := agenttest.New(agenttest.WithExecutor(Colleague(c.URL, opts...)))
	if err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return &Chain{B: b, C: c}, nil
}

// Close stops B, then C.
func (ch *Chain) Close() error { return errors.Join(ch.B.Close(), ch.C.Close()) }

// Colleague is B's executor: it says a sentence, asks the agent at url
// (with a client built with opts) in an ask_colleague call whose blocks
// carry that agent's progress, and answers with its reply.
func Colleague(url string, opts ...client.Option) a2asrv.AgentExecutor {
	return Hop("B", url, opts...)
}

// Hop is Colleague for an agent named name (its sentence and its reply
// start with "<name>: "): a chain of several Go agents is Hops, each asking
// the next.
func Hop(name, url string, opts ...client.Option) a2asrv.AgentExecutor {
	return colleague{name: name, url: url, opts: opts}
}

// colleague is a hop (see Hop).
type colleague struct {
	name string
	url  string
	opts []client.Option
}

func (x colleague) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		em := emit.New(ec, yield)
		defer em.Close()
		fail := func(err error) { _ = em.Finish(a2a.TaskStateFailed, err.Error()) }
		if err := em.Text(x.name + ": asking a colleague"); err != nil {
			return
		}
		call, err := em.ToolStart(AskTool, AskID)
		if err != nil {
			fail(err)
			return
		}
		cl, err := client.New(ctx, x.url, x.opts...)
		if err != nil {
			fail(err)
			return
		}
		defer cl.Close()
		s, err := cl.SendText(ctx, ScriptName)
		if err != nil {
			fail(err)
			return
		}
		out, err := client.Forward(s, call)
		if err != nil {
			_ = call.Aborted()
			fail(err)
			return
		}
		if err := call.Done(); err != nil {
			fail(err)
			return
		}
		_ = em.Finish(a2a.TaskStateCompleted, x.name+": "+out.Reply)
	}
}

func (colleague) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
