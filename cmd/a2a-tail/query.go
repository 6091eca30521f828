package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client/v1query"
)

// queryCommand talks to the plain REST SSE endpoint of a runtime that
// mis-routes its progress frames (PROTOCOL.md §5.3).
func (a *app) queryCommand() *cobra.Command {
	var conversation string
	cmd := &cobra.Command{
		Use:   "query <base-url> <text…>",
		Short: "Ask a runtime's plain REST endpoint (POST /v1/query, stream) and follow the turn",
		Long: `query sends the text to POST <base-url>/v1/query with "stream": true — the plain REST
SSE endpoint of an agent runtime (see PROTOCOL.md §5.3) — and renders the turn like an A2A
one. Its untyped data: frames are told apart by shape: projection frames
{content, projection} are remote tool-call progress, {message, items} is the
interrupt (exit code 4; respond with --conversation-id set to the id printed on
stderr), anything else is a chunk of the reply. The body's end completes the turn.
There is no resumption: a cut ends the turn incomplete.

` + exitCodesHelp,
		Example: `  a2a-tail query http://localhost:18097 "review this expense: flight 5000"
  a2a-tail query --conversation-id 6d72bcf8-… http://localhost:18097 approved`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := a.queryOptions()
			if conversation != "" {
				opts = append(opts, v1query.WithConversationID(conversation))
			}
			st, err := v1query.Send(ctx, args[0], strings.Join(args[1:], " "), opts...)
			if err != nil {
				return err
			}
			if id := st.TaskID(); id != "" {
				a.warnf("conversation %s\n", id)
			}
			return a.consume(ctx, st)
		},
	}
	cmd.Flags().StringVar(&conversation, "conversation-id", "", "conversation_id to send (default: a new one; reuse it to respond to an interrupt)")
	a.outputFlags(cmd)
	a.callFlags(cmd)
	return cmd
}

// queryOptions turns the global flags that apply to the endpoint into
// v1query options: the idle timeout, the credentials and service
// parameters (sent as headers), the caps and the logger. It is not A2A:
// transports, retries, tenants and allowed hosts do not apply.
func (a *app) queryOptions() []v1query.Option {
	opts := []v1query.Option{v1query.WithIdleTimeout(a.idleTimeout), v1query.WithStreamOptions(a.streamOptions()...)}
	if a.auth != "" {
		opts = append(opts, v1query.WithHeader("Authorization", a.auth))
	}
	for _, p := range a.svcParams {
		k, v, _ := strings.Cut(p, "=")
		opts = append(opts, v1query.WithHeader(k, v))
	}
	return opts
}
