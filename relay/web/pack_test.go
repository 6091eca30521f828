package web

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestPackContents checks what `npm pack` would publish: the receiver, its
// types, the AG-UI reconnect subclass, its README, the manifest and the licence — nothing of the page, the Go files or
// the tests.
func TestPackContents(t *testing.T) {
	t.Parallel()
	needNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		testdep.SkipOrFail(t, "npm is not on PATH", "the check of what `npm pack` publishes runs npm")
	}
	out, err := exec.Command(npm, "pack", "--dry-run", "--json", "--ignore-scripts").Output()
	if err != nil {
		t.Fatalf("npm pack --dry-run: %v\n%s", err, out)
	}
	var packs []struct {
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
	want := []string{"LICENSE", "README.md", "agui-reconnect.d.ts", "agui-reconnect.js", "package.json", "receiver.d.ts", "receiver.js"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("npm pack contents (-want +got):\n%s", d)
	}
	var manifest struct {
		License string `json:"license"`
	}
	b, err := exec.Command(npm, "pkg", "get", "license").Output()
	if err != nil {
		t.Fatalf("npm pkg get license: %v", err)
	}
	if err := json.Unmarshal(b, &manifest.License); err != nil || manifest.License != "Apache-2.0" {
		t.Errorf("package.json license = %q (%v), want Apache-2.0", b, err)
	}
}
