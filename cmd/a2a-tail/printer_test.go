package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/tfrs/a2a-progress/internal/termtext"
)

// The stderr logger's attributes are peer text too: cut, redacted, and
// quoted with escapes by the text handler.
func TestLoggerEscapes(t *testing.T) {
	var b strings.Builder
	a := &app{stderr: &b, verbose: 2}
	a.logger().Debug("a2a stream cut", "cause", errors.New("\u202eevil\x1b[2J at http://u:pw@h/ "+strings.Repeat("x", 4<<20)))
	out := b.String()
	if strings.ContainsAny(out, "\u202e\x1b") || strings.Contains(out, "pw@") || len(out) > 4*termtext.MaxPeerBytes {
		t.Fatalf("log line of %d bytes: %.300q", len(out), out)
	}
	if !strings.Contains(out, `\u202eevil\x1b[2J at http://u:***@h/`) || !strings.Contains(out, "bytes in all") {
		t.Fatalf("log line: %.300q", out)
	}
}
