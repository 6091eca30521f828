package web

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestPackContents checks what `npm pack` would publish: the receiver, its
// types, the AG-UI reconnect subclass, its README, the manifest and the
// licence — nothing of the page, the Go files or the tests.
func TestPackContents(t *testing.T) {
	t.Parallel()
	want := testdep.Packed{
		Name:    "@tfrs/a2a-progress-receiver",
		License: "Apache-2.0",
		Files:   []string{"LICENSE", "README.md", "agui-reconnect.d.ts", "agui-reconnect.js", "package.json", "receiver.d.ts", "receiver.js"},
	}
	if d := cmp.Diff(want, testdep.Pack(t, ".", "the check of what `npm pack` publishes")); d != "" {
		t.Errorf("npm pack (-want +got):\n%s", d)
	}
}
