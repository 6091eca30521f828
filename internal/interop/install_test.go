package interop

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
	"strings"
	"sync"
	"testing"
	"time"
)

// requireEnv, when set to a non-empty value, turns every reason to skip the
// JS interop tests (no node, no npm, registry unreachable) into a failure.
// .ci/run sets it: CI must run them for real, never pass by skipping.
const requireEnv = "A2A_PROGRESS_REQUIRE_INTEROP"

// installTimeout bounds `npm ci`; a cold cache downloads a few MB.
const installTimeout = 5 * time.Minute

// sdkPackage is the npm package whose presence means "installed".
const sdkPackage = "@a2a-js/sdk"

var (
	installOnce sync.Once
	// installSkip is why the SDK cannot be installed on this machine ("" if
	// it can); installErr is an install that failed for another reason.
	installSkip string
	installErr  error
)

// requireSDK makes sure jsagent/node_modules holds the SDK version the
// lockfile pins, running `npm ci` once per test process when it is missing.
// It skips the test when this machine cannot install it (no npm, no
// registry), and fails it on any other install problem.
func requireSDK(t *testing.T) {
	t.Helper()
	installOnce.Do(func() { installSkip, installErr = installSDK(jsAgentDir) })
	if installSkip != "" {
		skipOrFail(t, installSkip)
	}
	if installErr != nil {
		t.Fatal(installErr)
	}
}

// skipOrFail skips with why, unless requireEnv asks for the test to run.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(requireEnv) != "" {
		t.Fatalf("%s (%s is set, so this is a failure, not a skip)", why, requireEnv)
	}
	t.Skip(why)
}

// installSDK installs the lockfile's packages into dir/node_modules unless
// the pinned SDK is already there.
//
// Concurrent runs (two `go test` processes, or -count with -p) are safe
// without a lock: each installs into its own temporary directory under dir
// and renames its node_modules into place. A rename onto a non-empty
// directory fails, so the first one wins whole, and the others find the
// pinned SDK there and drop their copy. Nothing ever sees a half-written
// node_modules.
func installSDK(dir string) (skip string, err error) {
	want, err := lockedVersion(dir, sdkPackage)
	if err != nil {
		return "", err
	}
	switch got, err := installedVersion(dir, sdkPackage); {
	case err == nil && got == want:
		return "", nil
	case err == nil:
		return "", fmt.Errorf("%s: node_modules holds %s %s but the lockfile pins %s; from the repository root run:\n\tnpm ci --prefix internal/interop/jsagent", dir, sdkPackage, got, want)
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	}

	npm, err := exec.LookPath("npm")
	if err != nil {
		return "skipping the JS SDK interop test: node is installed but npm is not on PATH, so the pinned " + sdkPackage + " cannot be installed (install npm, or run `npm ci --prefix internal/interop/jsagent` elsewhere)", nil
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
	// --ignore-scripts: the agent needs no install scripts, and a test run
	// should not execute any.
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if m := offline.FindString(out.String()); m != "" {
			return fmt.Sprintf("skipping the JS SDK interop test: `npm ci` in %s could not reach the npm registry (%s; offline?), so the pinned %s is not installed", dir, m, sdkPackage), nil
		}
		return "", fmt.Errorf("npm ci in %s: %w\n%s", dir, err, out.Bytes())
	}

	if err := os.Rename(filepath.Join(tmp, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		// Another run may have won the rename; its install is as good.
		if got, verr := installedVersion(dir, sdkPackage); verr != nil || got != want {
			return "", fmt.Errorf("npm ci: moving node_modules into place: %w", err)
		}
	}
	if got, err := installedVersion(dir, sdkPackage); err != nil || got != want {
		return "", fmt.Errorf("npm ci in %s finished but %s is %q, want %s (%v)", dir, sdkPackage, got, want, err)
	}
	return "", nil
}

// offline matches npm's errors for a registry it cannot reach.
var offline = regexp.MustCompile(`\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b`)

// lockedVersion reads the version of pkg that dir's package-lock.json pins.
func lockedVersion(dir, pkg string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "", err
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		return "", fmt.Errorf("%s/package-lock.json: %w", dir, err)
	}
	p, ok := lock.Packages["node_modules/"+pkg]
	if !ok || p.Version == "" {
		return "", fmt.Errorf("%s/package-lock.json pins no version of %s", dir, pkg)
	}
	return p.Version, nil
}

// installedVersion reads the version of pkg installed under dir; an error
// matching fs.ErrNotExist means it is not installed.
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
