package web

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tfrs/a2a-progress/internal/testdep"
)

// TestTypes checks the .d.ts files against the modules: testdata/types/usage.ts,
// which uses every export as the .d.ts files declare it, must type-check
// with tsc --strict (typescript pinned in package-lock.json) and then run,
// as tsc emits it, against receiver.js and agui-reconnect.js. The subtests
// show that each half can fail: a .d.ts that renames a member fails tsc; a
// module that lacks a declared export, has one undeclared, or returns
// another shape fails the run.
func TestTypes(t *testing.T) {
	t.Parallel()
	node := needNode(t)
	tsc := typescript(t)
	tscArgs := []string{tsc, "--strict", "--target", "es2022", "--module", "nodenext", "testdata/types/usage.ts"}
	// pkgCopy writes the package's files into a new directory, with old
	// replaced by new in file.
	pkgCopy := func(t *testing.T, file, old, new string) string {
		dir := t.TempDir()
		for _, f := range []string{"receiver.js", "receiver.d.ts", "agui-reconnect.js", "agui-reconnect.d.ts", "package.json",
			"testdata/types/usage.ts"} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if f == file {
				if !strings.Contains(string(b), old) {
					t.Fatalf("%s has no %q to change", f, old)
				}
				b = []byte(strings.Replace(string(b), old, new, 1))
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	dir := pkgCopy(t, "", "", "")
	// One run checks and emits: tsc exits non-zero on a type error.
	if out, err := run(dir, node, tscArgs...); err != nil {
		t.Fatalf("tsc --strict: %v\n%s", err, out)
	}
	usage, err := os.ReadFile(filepath.Join(dir, "testdata", "types", "usage.js"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(dir, node, "testdata/types/usage.js"); err != nil {
		t.Fatalf("node usage.js (what tsc emits): %v\n%s", err, out)
	}

	t.Run("a .d.ts that renames a member fails tsc", func(t *testing.T) {
		dir := pkgCopy(t, "receiver.d.ts", "  effect: Effect;", "  outcome: Effect;")
		out, err := run(dir, node, append(tscArgs, "--noEmit")...)
		if want := "Property 'effect' does not exist on type 'Applied'"; err == nil || !strings.Contains(out, want) {
			t.Fatalf("tsc --strict --noEmit = %v, want a failure with %q:\n%s", err, want, out)
		}
	})
	// The .d.ts files unchanged, tsc emits the same usage.js: each module
	// below runs it.
	for _, tt := range []struct{ name, old, new, want string }{
		{"a module that lacks a declared export", "export function answer(", "function answer(",
			"does not provide an export named 'answer'"},
		{"a module that returns another shape", "const res = (effect, late = false) => ({ effect, late });",
			"const res = (effect, late = false) => ({ result: effect, late });", "the module disagrees with its .d.ts: apply"},
		{"a module with an undeclared export", "function decodeOp(input) {", "export function decodeOp(input) {",
			"the module disagrees with its .d.ts: receiver.js exports"},
	} {
		t.Run(tt.name+" fails the run", func(t *testing.T) {
			dir := pkgCopy(t, "receiver.js", tt.old, tt.new)
			if err := os.WriteFile(filepath.Join(dir, "testdata", "types", "usage.js"), usage, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(dir, node, "testdata/types/usage.js")
			if err == nil || !strings.Contains(out, tt.want) {
				t.Fatalf("node usage.js = %v, want a failure with %q:\n%s", err, tt.want, out)
			}
		})
	}
}

func run(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// typescript returns the path of the pinned tsc, relay/web's
// devDependencies installed from package-lock.json by the one npm installer
// ([testdep.NPM]).
func typescript(t *testing.T) string {
	t.Helper()
	testdep.NPM(t, ".", "the check of receiver.d.ts against receiver.js (tsc --strict)")
	tsc, err := filepath.Abs(filepath.Join("node_modules", "typescript", "bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	return tsc
}
