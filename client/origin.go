package client

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/redirect"
)

// ErrOtherOrigin is matched (errors.Is) by the error of [New] when the
// agent card names interfaces only on other origins (scheme, host, port)
// than the URL the caller gave, and credentials would go there. See the
// package doc, "Credentials".
var ErrOtherOrigin = errors.New("client: the agent card names another origin")

// WithAllowedHosts allows [New] to follow an agent card to interfaces on
// these hosts with the credentials of [WithAuth] and [WithServiceParam]
// (see the package doc, "Credentials"). An entry is a host ("agent.example",
// any port and scheme), a host and port ("agent.example:8443"), or an
// origin ("https://agent.example:8443"); "*" allows every host — trust the
// card whatever it names. It may be repeated.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) { c.allowedHosts = append(c.allowedHosts, hosts...) }
}

// origin is a URL's scheme, host name and port, lower-cased, with the
// default port of its scheme filled in. scheme is "" for a gRPC target
// ("host:port"), whose scheme the dial options decide.
type origin struct{ scheme, host, port string }

func (o origin) String() string {
	hp := net.JoinHostPort(o.host, o.port)
	if o.scheme == "" {
		return hp
	}
	return o.scheme + "://" + hp
}

// parseOrigin reads an agent URL or a gRPC target.
func parseOrigin(raw string) (origin, bool) {
	if !strings.Contains(raw, "://") {
		raw = "//" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return origin{}, false
	}
	return originOf(u), true
}

func originOf(u *url.URL) origin {
	o := origin{scheme: strings.ToLower(u.Scheme), host: strings.ToLower(u.Hostname()), port: u.Port()}
	if o.port == "" {
		switch o.scheme {
		case "http":
			o.port = "80"
		case "https", "":
			o.port = "443" // gRPC's default too
		}
	}
	return o
}

// same reports whether o and p are one origin; a gRPC target matches the
// host and port of any scheme.
func (o origin) same(p origin) bool {
	return o.host == p.host && o.port == p.port && (o.scheme == p.scheme || o.scheme == "" || p.scheme == "")
}

// allowedBy reports whether an entry of WithAllowedHosts allows o.
func (o origin) allowedBy(entries []string) bool {
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "*":
			return true
		case strings.Contains(e, "://"):
			if p, ok := parseOrigin(e); ok && p.scheme == o.scheme && p.host == o.host && p.port == o.port {
				return true
			}
		default:
			host, port, err := net.SplitHostPort(e)
			if err != nil {
				host, port = strings.Trim(e, "[]"), ""
			}
			if host == o.host && (port == "" || port == o.port) {
				return true
			}
		}
	}
	return false
}

// hasCredentials reports whether calls carry credentials the client was
// given: service parameters (Authorization and any other header, which may
// hold an API key) or a password in the agent URL.
func (c *config) hasCredentials(agentURL string) bool {
	if len(c.params) > 0 {
		return true
	}
	u, err := url.Parse(agentURL)
	return err == nil && u.User != nil
}

// keepOrigin returns the card with only the interfaces the credentials may
// go to: those on the origin of agentURL and those WithAllowedHosts
// allows. A card left with none is refused with an error that names both
// origins. A card served after a redirect is judged against agentURL too:
// the origin is the one the caller gave.
func (c *config) keepOrigin(agentURL string, card *a2a.AgentCard) (*a2a.AgentCard, error) {
	if !c.hasCredentials(agentURL) {
		return card, nil
	}
	home, ok := parseOrigin(agentURL)
	if !ok {
		return card, nil
	}
	var kept, away []*a2a.AgentInterface
	for _, iface := range card.SupportedInterfaces {
		if iface == nil {
			continue
		}
		o, ok := parseOrigin(iface.URL)
		if ok && (o.same(home) || o.allowedBy(c.allowedHosts)) {
			kept = append(kept, iface)
		} else {
			away = append(away, iface)
		}
	}
	if len(away) == 0 {
		return card, nil
	}
	if len(kept) == 0 {
		names := make([]string, 0, len(away))
		hosts := make([]string, 0, len(away))
		for _, iface := range away {
			names = append(names, fmt.Sprintf("%s at %s", iface.ProtocolBinding, redirect.Redact(iface.URL)))
			if o, ok := parseOrigin(iface.URL); ok {
				hosts = append(hosts, strconvQuote(net.JoinHostPort(o.host, o.port)))
			}
		}
		return nil, fmt.Errorf("%w: the card of %s names %s; the credentials stay with %s — allow the other host explicitly with WithAllowedHosts(%s) (a2a-tail: --allow-host)",
			ErrOtherOrigin, redirect.Redact(agentURL), strings.Join(names, ", "), home, strings.Join(hosts, ", "))
	}
	c.logger.Info("a2a card: interfaces on another origin skipped (credentials stay with the origin given)",
		"origin", home.String(), "skipped", len(away))
	cp := *card
	cp.SupportedInterfaces = kept
	return &cp, nil
}

func strconvQuote(s string) string { return `"` + s + `"` }
