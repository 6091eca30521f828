package react_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestPackContents checks what `npm pack` of @tfrs/a2a-progress-react
// publishes: the components, their types, the styles, the README, the
// manifest and the licence — nothing of the tests (test/, the Go files).
func TestPackContents(t *testing.T) {
	testdep.Node(t, "the check of what `npm pack` publishes")
	npm, err := exec.LookPath("npm")
	if err != nil {
		testdep.SkipOrFail(t, "npm is not on PATH", "the check of what `npm pack` publishes runs npm")
	}
	out, err := exec.Command(npm, "pack", "--dry-run", "--json", "--ignore-scripts").Output()
	if err != nil {
		t.Fatalf("npm pack --dry-run: %v\n%s", err, out)
	}
	var packs []struct {
		Name  string `json:"name"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &packs); err != nil || len(packs) != 1 {
		t.Fatalf("npm pack --json: %v (%d packages)\n%s", err, len(packs), out)
	}
	var got []string
	for _, f := range packs[0].Files {
		got = append(got, filepath.ToSlash(f.Path))
	}
	sort.Strings(got)
	want := []string{"LICENSE", "README.md", "package.json", "styles.css", "usechat.d.ts", "usechat.js", "view.d.ts", "view.js"}
	// The CopilotKit renderer ships beside them once it is there.
	for _, f := range []string{"copilotkit.d.ts", "copilotkit.js"} {
		if _, err := os.Stat(f); err == nil {
			want = append(want, f)
		}
	}
	sort.Strings(want)
	if d := cmp.Diff(want, got); d != "" || packs[0].Name != "@tfrs/a2a-progress-react" {
		t.Errorf("npm pack of %q (-want +got):\n%s", packs[0].Name, d)
	}
}
