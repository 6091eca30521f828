package client

import (
	"errors"
	"testing"

	"github.com/tfrs/a2a-progress/internal/redirect"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

// keepOrigin keeps the interfaces on the caller's origin and the allowed
// ones, and refuses a card left with none — only when credentials would be
// sent.
func TestKeepOrigin(t *testing.T) {
	t.Parallel()
	iface := func(url string) *a2a.AgentInterface {
		return &a2a.AgentInterface{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC}
	}
	for _, tc := range []struct {
		name    string
		url     string
		opts    []Option
		ifaces  []string
		want    []string // kept
		refused bool
	}{
		{"same origin", "https://a.example", []Option{WithAuth("x")}, []string{"https://a.example/rpc", "https://A.example:443/v1"}, []string{"https://a.example/rpc", "https://A.example:443/v1"}, false},
		{"another host", "https://a.example", []Option{WithAuth("x")}, []string{"https://b.example/rpc"}, nil, true},
		{"another port", "http://127.0.0.1:80", []Option{WithAuth("x")}, []string{"http://127.0.0.1:81/rpc"}, nil, true},
		{"another scheme", "https://a.example", []Option{WithAuth("x")}, []string{"http://a.example:443/rpc"}, nil, true},
		{"a service parameter is a credential", "https://a.example", []Option{WithServiceParam("X-Api-Key", "k")}, []string{"https://b.example/rpc"}, nil, true},
		{"a password in the URL is a credential", "https://u:p@a.example", nil, []string{"https://b.example/rpc"}, nil, true},
		{"no credentials: the card is followed", "https://a.example", nil, []string{"https://b.example/rpc"}, []string{"https://b.example/rpc"}, false},
		{"the other one is skipped", "https://a.example", []Option{WithAuth("x")}, []string{"https://b.example/rpc", "https://a.example/rpc"}, []string{"https://a.example/rpc"}, false},
		{"allowed host", "https://a.example", []Option{WithAuth("x"), WithAllowedHosts("b.example")}, []string{"https://b.example:8443/rpc"}, []string{"https://b.example:8443/rpc"}, false},
		{"allowed host and port", "https://a.example", []Option{WithAuth("x"), WithAllowedHosts("b.example:8443")}, []string{"https://b.example:8443/rpc", "https://b.example/rpc"}, []string{"https://b.example:8443/rpc"}, false},
		{"allowed origin, other scheme", "https://a.example", []Option{WithAuth("x"), WithAllowedHosts("https://b.example")}, []string{"http://b.example:443/rpc"}, nil, true},
		{"allow all", "https://a.example", []Option{WithAuth("x"), WithAllowedHosts("*")}, []string{"https://b.example/rpc"}, []string{"https://b.example/rpc"}, false},
		{"a gRPC target on the same host and port", "https://a.example", []Option{WithAuth("x")}, []string{"a.example:443"}, []string{"a.example:443"}, false},
		{"a gRPC target on another port", "https://a.example", []Option{WithAuth("x")}, []string{"a.example:50051"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig()
			for _, o := range tc.opts {
				o(&cfg)
			}
			card := &a2a.AgentCard{Name: "c"}
			for _, u := range tc.ifaces {
				card.SupportedInterfaces = append(card.SupportedInterfaces, iface(u))
			}
			got, err := cfg.keepOrigin(tc.url, card)
			if tc.refused {
				if !errors.Is(err, ErrOtherOrigin) {
					t.Fatalf("err = %v, want ErrOtherOrigin", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, i := range got.SupportedInterfaces {
				kept = append(kept, i.URL)
			}
			if d := cmp.Diff(tc.want, kept); d != "" {
				t.Fatalf("kept (-want +got):\n%s", d)
			}
			if len(card.SupportedInterfaces) != len(tc.ifaces) {
				t.Fatal("the caller's card was modified")
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://user:pw@host:1/x": "http://user:***@host:1/x",
		"http://user@host/":       "http://user@host/",
		"http://host/":            "http://host/",
		"not a url":               "not a url",
	} {
		if got := redirect.Redact(in); got != want {
			t.Errorf("redirect.Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
