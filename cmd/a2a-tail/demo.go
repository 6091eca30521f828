package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

func (a *app) demoCommand() *cobra.Command {
	var pace time.Duration
	var version string
	var webPage bool
	var listen string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Follow a realistic turn of an embedded reference agent",
		Long: `demo starts the project's reference A2A agent on 127.0.0.1 and sends it a message.
The agent streams a realistic turn — thinking, two tool calls with output, progress
text, an error block, one envelope out of order and one duplicated — and completes
with a reply. It ends by itself within a few seconds. --transport picks the
interface the agent's card lists, --protocol its version.

` + exitCodesHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("listen") && !webPage {
				return usageError{errors.New("--listen needs --web")}
			}
			var v a2a.ProtocolVersion
			switch version {
			case "1.0":
				v = agenttest.V1
			case "0.3":
				v = agenttest.V0
			default:
				return usageError{fmt.Errorf("--protocol %q: want 1.0 or 0.3", version)}
			}
			srv, err := agenttest.New(agenttest.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			if err != nil {
				return err
			}
			defer srv.Close()
			// The demo's turn, and any message the web page sends (the
			// default script), at the same pace.
			paced := agenttest.Realistic().WithPause(pace)
			srv.Register(paced)
			paced.Name = ""
			srv.Register(paced)
			url := srv.CardURL(v)
			if t := a.forcedTransport(); t != "" {
				url = srv.CardURLFor(t, v) // a card that lists only that transport
			}
			a.plaintext = true // the demo agent's gRPC listens on loopback without TLS
			ctx := cmd.Context()
			c, err := client.New(ctx, url, a.connectionOptions()...)
			if err != nil {
				return err
			}
			defer c.Close()
			fmt.Fprintf(a.stderr, "a2a-tail: demo agent on %s (A2A %s)\n", strings.TrimSuffix(url, "/"), v)
			if webPage {
				return a.demoWeb(ctx, c, listen)
			}
			st, err := c.SendText(ctx, agenttest.RealisticName)
			if err != nil {
				return err
			}
			return a.consume(ctx, st)
		},
	}
	cmd.Flags().DurationVar(&pace, "pace", 150*time.Millisecond, "pause of the demo agent before each update")
	cmd.Flags().BoolVar(&webPage, "web", false, "serve the turn as a web page instead, with a box to send the agent more (prints its URL; Ctrl-C ends)")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:0", "with --web: the loopback address to serve the page on (port 0: a free one)")
	cmd.Flags().StringVar(&version, "protocol", "1.0", "A2A protocol version the demo agent is reached with: 1.0 or 0.3")
	a.outputFlags(cmd)
	a.resumeFlags(cmd)
	a.idleFlag(cmd)
	return cmd
}
