package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/client/agenttest"
)

// A card served from one origin that names an interface on another: with
// credentials, New refuses it, naming both, until the other host is
// allowed. Without credentials a card is followed wherever it points.
func ExampleWithAllowedHosts() {
	a, err := agenttest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	iface := a.Endpoint(a2a.TransportProtocolJSONRPC, a2a.Version)
	card := httptest.NewServer(a2asrv.NewStaticAgentCardHandler(&a2a.AgentCard{Name: "proxied",
		Capabilities: a2a.AgentCapabilities{Streaming: true}, SupportedInterfaces: []*a2a.AgentInterface{iface}}))
	defer card.Close()
	ctx := context.Background()

	_, err = client.New(ctx, card.URL, client.WithAuth("Bearer s3cret"))
	fmt.Println("credentials, other origin:", errors.Is(err, client.ErrOtherOrigin))

	host, _ := url.Parse(iface.URL)
	c, err := client.New(ctx, card.URL, client.WithAuth("Bearer s3cret"), client.WithAllowedHosts(host.Host))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, _ := c.SendText(ctx, "hello")
	out, err := s.Run(func(client.Update) error { return nil })
	fmt.Println("allowed:", out.State, err)
	// Output:
	// credentials, other origin: true
	// allowed: TASK_STATE_COMPLETED <nil>
}
