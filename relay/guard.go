package relay

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// TokenCookie is the cookie in which a [Guard] with a token keeps it for
// the page that was opened with ?token=: the page's own requests (fetch,
// EventSource) then carry it without the page seeing it (HttpOnly).
const TokenCookie = "a2a_relay_token"

// GuardConfig says which requests a [Guard] lets through.
type GuardConfig struct {
	// Hosts are the Host header values this server responds to, as
	// host:port (compared without case; with port 80 or 443 the bare host
	// is accepted too, as browsers send it). [LoopbackHosts] gives the
	// names of a server on loopback.
	Hosts []string
	// AnyIPHost also accepts a Host that is an IP literal (with any port):
	// an address cannot be rebound to another server, only a name can.
	// For a server on a wildcard address reached by its IP.
	AnyIPHost bool
	// Origins are the browser origins (scheme://host[:port]) allowed
	// besides the server's own (http or https on an accepted Host): those
	// given to [WithCORS], typically.
	Origins []string
	// Token, when not empty, is required of every request: as
	// "Authorization: Bearer <token>" (the scheme in any case), as the [TokenCookie] cookie, or as
	// ?token= (which also sets the cookie, for the page it opens).
	Token string
}

// A Guard refuses requests that are not meant for this server, before
// any handler sees them: the defence against DNS rebinding and
// cross-site requests for a server that acts with its user's credentials.
//
// A page on http://attacker.test:8080 whose name its owner makes resolve to
// 127.0.0.1 is, for the browser, same-origin with itself: it can POST to a
// loopback server on port 8080 and read the responses. What gives it away is
// the Host header (attacker.test:8080), which a Guard checks against the
// names the server responds to; a browser's Origin header, when present,
// must be the server's own origin or one allowed. A server beyond loopback
// needs more than names: a Token (as notebook servers print one), which a
// page from elsewhere cannot know.
//
// A refused request gets a JSON error {"error": …}: 403 for a Host or
// Origin, 401 for a missing or wrong token. Wrap the whole server — the
// page, the event streams, and every endpoint that sends — with [Guard.Wrap].
type Guard struct {
	hosts   map[string]bool
	anyIP   bool
	origins map[string]bool
	token   []byte
}

// NewGuard returns a Guard for c.
func NewGuard(c GuardConfig) *Guard {
	g := &Guard{hosts: map[string]bool{}, anyIP: c.AnyIPHost, origins: map[string]bool{}}
	for _, h := range c.Hosts {
		h = strings.ToLower(h)
		g.hosts[h] = true
		if host, port, err := net.SplitHostPort(h); err == nil && (port == "80" || port == "443") {
			g.hosts[host] = true // a browser omits the default port
			if strings.Contains(host, ":") {
				g.hosts["["+host+"]"] = true
			}
		}
	}
	for _, o := range c.Origins {
		g.origins[strings.ToLower(o)] = true
	}
	if c.Token != "" {
		g.token = []byte(c.Token)
	}
	return g
}

// LoopbackHosts returns the Host values of a server listening on loopback
// at port: localhost, 127.0.0.1 and [::1], each with the port.
func LoopbackHosts(port string) []string {
	return []string{
		net.JoinHostPort("localhost", port),
		net.JoinHostPort("127.0.0.1", port),
		net.JoinHostPort("::1", port),
	}
}

// Wrap returns next behind the guard.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.check(w, r); err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check returns nil when r may pass, and otherwise an error whose text says
// why (401 or 403 when Wrap responds to it). A valid ?token= sets the token
// cookie on w.
func (g *Guard) check(w http.ResponseWriter, r *http.Request) error {
	host := strings.ToLower(r.Host)
	if !g.hostAllowed(host) {
		return &httpError{http.StatusForbidden, "relay: Host " + strconvQuote(r.Host) +
			" is not a name this server answers to (a DNS-rebinding page sends its own name): open it by one it does"}
	}
	if o := r.Header.Get("Origin"); o != "" {
		lo := strings.ToLower(o)
		if lo != "http://"+host && lo != "https://"+host && !g.origins[lo] {
			return &httpError{http.StatusForbidden, "relay: Origin " + strconvQuote(o) + " is not allowed"}
		}
	}
	if g.token == nil {
		return nil
	}
	// The scheme is case-insensitive (RFC 9110 §11.1): "bearer" is Bearer.
	if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") &&
		g.tokenIs(strings.TrimLeft(tok, " ")) {
		return nil
	}
	if c, err := r.Cookie(TokenCookie); err == nil && g.tokenIs(c.Value) {
		return nil
	}
	if tok := r.URL.Query().Get("token"); tok != "" && g.tokenIs(tok) {
		http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: tok, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		return nil
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="a2a relay"`)
	return &httpError{http.StatusUnauthorized, "relay: this server needs its access token: open the URL it printed (with ?token=), or send Authorization: Bearer <token>"}
}

func (g *Guard) hostAllowed(host string) bool {
	if host == "" {
		return false
	}
	if g.hosts[host] {
		return true
	}
	if !g.anyIP {
		return false
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	return net.ParseIP(strings.Trim(h, "[]")) != nil
}

func (g *Guard) tokenIs(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), g.token) == 1
}
