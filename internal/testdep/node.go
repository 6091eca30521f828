package testdep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Node returns the path of node, or ends t ([SkipOrFail]) where it is not
// on PATH. what says what the test checks with it.
func Node(t testing.TB, what string) string {
	t.Helper()
	skipIfShort(t, what)
	node, err := exec.LookPath("node")
	if err != nil {
		SkipOrFail(t, "node is not on PATH", what+" runs on node; install Node.js and npm (README: What the tests need)")
	}
	return node
}

// NPM returns the path of node with the packages that dir's
// package-lock.json pins installed in dir/node_modules, installing them
// with `npm ci` when they are missing or differ from the lockfile. It ends
// t ([SkipOrFail]) where node or npm is not on PATH or the npm registry
// cannot be reached, and fails it on any other install problem.
//
// One install per directory: within a process the first caller installs
// and the others wait for it; across processes (two `go test` runs, or the
// several packages of one run that share a directory) a lock file in dir
// serialises them, and the install is built aside and renamed into place,
// so nothing ever runs a half-written node_modules.
func NPM(t testing.TB, dir, what string) string {
	t.Helper()
	node := Node(t, what)
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	installs.Lock()
	in, ok := installs.byDir[abs]
	if !ok {
		in = &install{}
		installs.byDir[abs] = in
	}
	installs.Unlock()
	in.once.Do(func() { in.skip, in.err = installLocked(abs) })
	if in.err != nil {
		t.Fatal(in.err)
	}
	if in.skip != "" {
		SkipOrFail(t, in.skip, what+" needs the packages pinned in "+filepath.Join(dir, "package-lock.json"))
	}
	return node
}

// install is the one install of a directory's packages in this process.
type install struct {
	once sync.Once
	skip string // why this machine cannot install them ("" if it can)
	err  error  // an install that failed for another reason
}

// installs holds one entry per lockfile directory the tests name (two in
// this module).
var installs = struct {
	sync.Mutex
	byDir map[string]*install
}{byDir: make(map[string]*install)}

// installTimeout bounds one `npm ci`: a cold cache downloads tens of MB.
const installTimeout = 10 * time.Minute

// offline matches npm's errors for a registry it cannot reach.
var offline = regexp.MustCompile(`\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b`)

func installLocked(dir string) (skip string, err error) {
	if stale, err := staleness(dir); err != nil || stale == "" {
		return "", err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "", fmt.Errorf("npm ci in %s: %w", dir, err)
	}
	defer unlock()
	return installDir(dir)
}

// installDir runs `npm ci` for dir unless another process installed the
// pinned packages while this one waited for the lock.
func installDir(dir string) (skip string, err error) {
	stale, err := staleness(dir)
	if err != nil || stale == "" {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "npm is not on PATH", nil
	}
	tmp, err := os.MkdirTemp(dir, ".npm-ci-")
	if err != nil {
		return "", fmt.Errorf("npm ci: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", fmt.Errorf("npm ci: %w", err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return "", fmt.Errorf("npm ci: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// --ignore-scripts: the tests need no install scripts, and a test run
	// executes none.
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if m := offline.FindString(out.String()); m != "" {
			return fmt.Sprintf("npm could not reach the registry (%s; offline?)", m), nil
		}
		return "", fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out.Bytes())
	}
	// A stale node_modules moves aside first (into tmp, removed with it):
	// a rename onto a non-empty directory fails.
	if err := os.Rename(filepath.Join(dir, "node_modules"), filepath.Join(tmp, "old")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("npm ci: moving the stale node_modules aside: %w", err)
	}
	if err := os.Rename(filepath.Join(tmp, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		return "", fmt.Errorf("npm ci: moving node_modules into place: %w", err)
	}
	if stale, err := staleness(dir); err != nil || stale != "" {
		return "", fmt.Errorf("npm ci in %s finished but %s (%v)", dir, stale, err)
	}
	return "", nil
}

// staleness says how dir/node_modules differs from what dir's
// package-lock.json pins for the direct dependencies ("" when it holds
// them all).
func staleness(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "", err
	}
	var lock struct {
		Packages map[string]struct {
			Version         string            `json:"version"`
			Dependencies    map[string]string `json:"dependencies"`
			DevDependencies map[string]string `json:"devDependencies"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return "", fmt.Errorf("%s/package-lock.json: %w", dir, err)
	}
	root := lock.Packages[""]
	var names []string
	for n := range root.Dependencies {
		names = append(names, n)
	}
	for n := range root.DevDependencies {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%s/package-lock.json pins no dependencies", dir)
	}
	sort.Strings(names)
	for _, n := range names {
		want := lock.Packages["node_modules/"+n].Version
		if want == "" {
			return "", fmt.Errorf("%s/package-lock.json pins no version of %s", dir, n)
		}
		got, err := installedVersion(dir, n)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return n + " is not installed", nil
		case err != nil:
			return "", err
		case got != want:
			return fmt.Sprintf("node_modules holds %s %s, the lockfile pins %s", n, got, want), nil
		}
	}
	return "", nil
}

// installedVersion reads the version of pkg installed under dir.
func installedVersion(dir, pkg string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("%s's package.json: %w", pkg, err)
	}
	return strings.TrimSpace(p.Version), nil
}

// JSAgent starts the A2A JS SDK peer in dir (client/internal/interop/jsagent, its
// packages installed by [NPM]) on a free loopback port and returns its URL.
// It stops when the test ends: the server exits when its stdin closes.
func JSAgent(t testing.TB, dir, what string) string {
	t.Helper()
	node := NPM(t, dir, what)
	cmd := exec.Command(node, "server.mjs", "0")
	cmd.Dir = dir
	line := Start(t, "the JS peer", cmd, Stdout).Next()
	port, ok := strings.CutPrefix(strings.TrimSpace(line), "port ")
	if !ok {
		t.Fatalf("the JS peer's first line is %q, not a port", line)
	}
	return "http://127.0.0.1:" + port
}

// Packed is what `npm pack` would publish from a directory: the package's
// name and licence from its manifest, and its files' slash paths, sorted.
type Packed struct {
	Name, License string
	Files         []string
}

// Pack returns what `npm pack --dry-run` would publish from dir, or ends t
// ([SkipOrFail]) where node or npm is not on PATH.
func Pack(t testing.TB, dir, what string) Packed {
	t.Helper()
	Node(t, what)
	npm, err := exec.LookPath("npm")
	if err != nil {
		SkipOrFail(t, "npm is not on PATH", what+" runs npm")
	}
	cmd := exec.Command(npm, "pack", "--dry-run", "--json", "--ignore-scripts")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pack --dry-run in %s: %v\n%s", dir, err, out)
	}
	var packs []struct {
		Name  string `json:"name"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &packs); err != nil || len(packs) != 1 {
		t.Fatalf("npm pack --json in %s: %v (%d packages)\n%s", dir, err, len(packs), out)
	}
	p := Packed{Name: packs[0].Name}
	for _, f := range packs[0].Files {
		p.Files = append(p.Files, filepath.ToSlash(f.Path))
	}
	sort.Strings(p.Files)
	cmd = exec.Command(npm, "pkg", "get", "license")
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("npm pkg get license in %s: %v", dir, err)
	}
	if err := json.Unmarshal(b, &p.License); err != nil {
		t.Fatalf("npm pkg get license in %s: %q: %v", dir, b, err)
	}
	return p
}
