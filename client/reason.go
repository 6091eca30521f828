package client

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Unreachable says in a few words a person can act on why err — a failed
// connection to an agent — happened: "nothing listens there (connection
// refused)", "its host name does not resolve", "its TLS certificate is not
// accepted", "it closed the connection", "its host cannot be reached", "it
// does not answer (timed out)". It reports false for an error that is not
// about reaching the agent (the agent responded, and refused or failed).
// Front ends show these words and keep the whole error (err.Error(), a Go
// chain with addresses) for the log.
func Unreachable(err error) (string, bool) {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var nerr net.Error
	switch {
	case err == nil:
		return "", false
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there (connection refused)", true
	case errors.As(err, &dns):
		return "its host name does not resolve", true
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid):
		return "its TLS certificate is not accepted", true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "it closed the connection", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "its host cannot be reached", true
	case errors.As(err, &nerr) && nerr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "it does not answer (timed out)", true
	}
	return "", false
}

// Reason is err — the end of a call or of a turn — in words a person can act
// on, for a page or a chat: "the agent cannot be reached: nothing listens
// there (connection refused)", "the agent does not know the task", "the turn
// stopped before it ended and could not be resumed", … An error it has no
// words for is said as it is. The whole error (a Go chain with addresses)
// belongs in a log.
func Reason(err error) string {
	why, unreachable := Unreachable(err)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrAgentDown):
		return "the agent is not reachable yet"
	case errors.Is(err, a2a.ErrTaskNotFound):
		return "the agent does not know the task"
	case errors.Is(err, ErrIncomplete) && unreachable:
		return "the turn could not be resumed: the agent cannot be reached: " + why
	case errors.Is(err, ErrIncomplete):
		return "the turn stopped before it ended and could not be resumed"
	case unreachable:
		return "the agent cannot be reached: " + why
	case errors.Is(err, context.Canceled):
		return "the call was canceled"
	}
	return err.Error()
}
