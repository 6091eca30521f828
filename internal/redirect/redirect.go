// Package redirect keeps credentials from following an HTTP redirect to
// another origin. The client package and its v1query sibling both send
// caller credentials (service parameters, custom headers) and both need the
// same guard; it lives here so that there is one rule, not two, and so that
// it is not part of either package's public API. For the same reason it
// holds Redact, how both print a URL that may carry a password.
package redirect

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is net/http's own limit, kept when the caller has no
// CheckRedirect of its own.
const maxRedirects = 10

// Guard makes hc drop every credential on a redirect to another origin than
// the request's first one: the headers named by the keys of header,
// Authorization, Proxy-Authorization and Cookie. net/http drops
// Authorization only when the host name changes, not the port or scheme,
// and never drops a custom header such as an API key. hc's own
// CheckRedirect, if any, runs after; without one, the redirect chain stops
// at net/http's limit of 10. header is read at each redirect, not copied.
func Guard(hc *http.Client, header map[string][]string) {
	next := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && origin(req.URL) != origin(via[0].URL) {
			for k := range header {
				req.Header.Del(k)
			}
			for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie"} {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// origin is scheme://host:port, lower case, with the scheme's default port.
// net/http follows redirects over http and https only, so those are the
// defaults it needs.
func origin(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// Redact returns raw with the password of its user info, if any, shown as
// "***" (user:***@host), so that an error message never prints it. A URL
// that does not parse, or carries no password, is returned as it is.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); !has {
		return raw
	}
	// url.URL escapes "*" in a password; a placeholder is swapped after.
	u.User = url.UserPassword(u.User.Username(), "REDACTED")
	return strings.Replace(u.String(), ":REDACTED@", ":***@", 1)
}
