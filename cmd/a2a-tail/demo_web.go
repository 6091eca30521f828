package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// demoWeb sends the demo turn and serves the web page that watches it on
// listen (loopback) until ctx ends. The relay publishes the turn's own
// stream from the start (Attach), so that every op carries the time its
// update arrived — a page opened after the turn still shows how long each
// step took, which a late Follow cannot know (history has no times). The
// page offers the send box: further messages go to the same agent.
func (a *app) demoWeb(ctx context.Context, c *client.Client, listen string) error {
	if _, err := checkListen(listen, false); err != nil {
		return usageError{fmt.Errorf("--listen %q: demo --web serves on a loopback address only", listen)}
	}
	// The turn outlives the request that sends it: it is the server's.
	st, err := c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(agenttest.RealisticName)))
	if err != nil {
		return err
	}
	id := st.TaskID()
	return a.serveWeb(ctx, client.LazyOf(c), webFlags{listen: listen, tasks: []string{string(id)}},
		"?task="+url.QueryEscape(string(id))+"&send", st)
}

// publish hands st, a turn sent before the server started, to the relay
// (Attach), as respond does for a turn sent from the page.
func (w *webServer) publish(st *client.Stream) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.turns.Add(1)
	w.mu.Unlock()
	go func() {
		defer w.turns.Done()
		for range w.relay.Attach(st) {
		}
	}()
}
