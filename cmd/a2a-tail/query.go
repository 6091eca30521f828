package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
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
interrupt (exit code 4; answer with --conversation-id set to the id printed on
stderr), anything else is a chunk of the reply. The body's end completes the turn.
--transport, --tenant and --max-retries do not apply: there is no resumption.

` + exitCodesHelp,
		Example: `  a2a-tail query http://localhost:18097 "review this expense: flight 5000"
  a2a-tail query --conversation-id 6d72bcf8-… http://localhost:18097 approved`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := a.connectionOptions()
			if conversation != "" {
				opts = append(opts, client.WithConversationID(conversation))
			}
			st, err := client.Query(ctx, args[0], strings.Join(args[1:], " "), opts...)
			if err != nil {
				return err
			}
			if id := st.TaskID(); id != "" {
				fmt.Fprintf(a.stderr, "conversation %s\n", id)
			}
			return a.consume(ctx, st)
		},
	}
	cmd.Flags().StringVar(&conversation, "conversation-id", "", "conversation_id to send (default: a new one; reuse it to answer an interrupt)")
	return cmd
}
