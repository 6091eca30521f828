package react_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestPackContents checks what `npm pack` of @tfrs/a2a-progress-react
// publishes: the components, their types, the styles, the README, the
// manifest and the licence — nothing of the tests (test/, the Go files).
func TestPackContents(t *testing.T) {
	t.Parallel()
	want := testdep.Packed{
		Name:    "@tfrs/a2a-progress-react",
		License: "Apache-2.0",
		Files: []string{"LICENSE", "README.md", "copilotkit.d.ts", "copilotkit.js", "package.json", "styles.css",
			"usechat.d.ts", "usechat.js", "view.d.ts", "view.js"},
	}
	if d := cmp.Diff(want, testdep.Pack(t, ".", "the check of what `npm pack` publishes")); d != "" {
		t.Errorf("npm pack (-want +got):\n%s", d)
	}
}
