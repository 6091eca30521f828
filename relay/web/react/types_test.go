package react_test

import (
	"os/exec"
	"testing"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestTypes checks the hand-written .d.ts files: test/types.tsx, an app's
// use of both modules with useChat's own part types, must pass tsc
// --strict, and each module must export exactly the values its .d.ts
// declares (test/types.mjs; a renamed member or an undeclared export fails
// it).
func TestTypes(t *testing.T) {
	node := testdep.NPM(t, testDir, "the check of relay/web/react's .d.ts files")
	cmd := exec.Command(node, "types.mjs")
	cmd.Dir = testDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the .d.ts files disagree with their use or their modules: %v\n%s", err, out)
	}
}
