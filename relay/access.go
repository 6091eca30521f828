package relay

import (
	"errors"
	"fmt"
	"net"
	"net/http"
)

// ErrNotFound is what an [Authorizer] wraps to answer 404 instead of 403
// (a policy that must not reveal whether a task exists).
var ErrNotFound = errors.New("relay: task not found")

// MaxTaskIDBytes caps a task id in a request path.
const MaxTaskIDBytes = 256

// ValidateTaskID checks a task id from a request: 1 to MaxTaskIDBytes bytes
// of letters, digits and -._~:@+= (what A2A agents use: UUIDs and similar).
// Anything else — slashes, spaces, controls, percent signs — is refused
// before it reaches an Authorizer, the agent or a log.
func ValidateTaskID(id string) error {
	if id == "" {
		return errors.New("relay: empty task id")
	}
	if len(id) > MaxTaskIDBytes {
		return fmt.Errorf("relay: task id longer than %d bytes", MaxTaskIDBytes)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == ':' || c == '@' || c == '+' || c == '=':
		default:
			return fmt.Errorf("relay: task id has a byte 0x%02x at %d that is not allowed", c, i)
		}
	}
	return nil
}

// AllowLoopback is an [Authorizer] that allows requests whose peer address
// is a loopback address (127.0.0.0/8, ::1) and refuses the others. It suits a
// relay that listens on loopback for its own user, as `a2a-tail web` does; it
// is no access control behind a reverse proxy on the same host.
func AllowLoopback(r *http.Request, _ string) error {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("relay: only loopback clients are allowed")
}

// AllowAll is an [Authorizer] that allows every request: for a relay behind
// something that already checked access.
func AllowAll(*http.Request, string) error { return nil }
