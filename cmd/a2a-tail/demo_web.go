package main

import (
	"context"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// demoWeb dispatches the demo turn and serves the web page that watches it,
// on a free loopback port, until ctx ends.
func (a *app) demoWeb(ctx context.Context, c *client.Client) error {
	id, err := c.Dispatch(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(agenttest.RealisticName)))
	if err != nil {
		return err
	}
	return a.serveWeb(ctx, readyAgent(c), webFlags{listen: "127.0.0.1:0", tasks: []string{string(id)}}, "?task="+url.QueryEscape(string(id)))
}
