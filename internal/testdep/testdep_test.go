package testdep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(Reporting(m)) }

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		name, require, ci string
		want              bool
	}{
		{"neither", "", "", false},
		{"require", "1", "", true},
		{"ci", "", "true", true},
		{"ci false", "", "false", false},
		{"require 0", "0", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(RequireEnv, c.require)
			t.Setenv("CI", c.ci)
			if got := Required(); got != c.want {
				t.Errorf("Required() = %v, want %v", got, c.want)
			}
		})
	}
}

// A skip is recorded by reason, and the package's summary line counts
// them; where Required holds the same call fails the test instead.
func TestSkipOrFailSummary(t *testing.T) {
	t.Setenv(RequireEnv, "")
	t.Setenv("CI", "")
	saved := skips.byReason
	savedOrder := skips.order
	skips.byReason, skips.order = nil, nil
	t.Cleanup(func() { skips.byReason, skips.order = saved, savedOrder })
	for _, name := range []string{"a", "b", "c"} {
		t.Run(name, func(t *testing.T) {
			reason := "node is not on PATH"
			if name == "c" {
				reason = "no Chromium"
			}
			SkipOrFail(t, reason, "the test "+name)
		})
	}
	want := "--- internal/testdep: 3 tests skipped: node is not on PATH (2); no Chromium (1) (set A2A_PROGRESS_REQUIRE_INTEROP=1 to fail instead)"
	if d := cmp.Diff(want, summary()); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

// staleness compares node_modules with the lockfile's direct dependencies.
func TestStaleness(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package-lock.json", `{"packages":{"":{"dependencies":{"a":"1.0.0"},"devDependencies":{"@s/b":"2.0.0"}},
		"node_modules/a":{"version":"1.0.0"},"node_modules/@s/b":{"version":"2.0.0"}}}`)
	var got []string
	check := func() {
		s, err := staleness(dir)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	check()
	write("node_modules/@s/b/package.json", `{"version":"2.0.0"}`)
	check()
	write("node_modules/a/package.json", `{"version":"0.9.0"}`)
	check()
	write("node_modules/a/package.json", `{"version":"1.0.0"}`)
	check()
	want := []string{"@s/b is not installed", "a is not installed", "node_modules holds a 0.9.0, the lockfile pins 1.0.0", ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("staleness (-want +got):\n%s", d)
	}
}

// A watchdog whose test reports no progress ends its context with
// ErrNoProgress; reported progress restarts its budget.
func TestWatchdogEnds(t *testing.T) {
	ctx, w, stop := newWatchdog(time.Millisecond)
	for i := 0; i < 3; i++ {
		w.progress()
	}
	<-ctx.Done() // the watchdog fires: nothing else ends ctx
	if err := context.Cause(ctx); !errors.Is(err, ErrNoProgress) {
		t.Errorf("cause = %v, want ErrNoProgress", err)
	}
	if err := stop(); !errors.Is(err, ErrNoProgress) {
		t.Errorf("stop() = %v, want ErrNoProgress", err)
	}
}

// A watchdog that did not fire ends quietly when its test does.
func TestWatchdogStops(t *testing.T) {
	ctx, w, stop := newWatchdog(time.Hour)
	w.progress()
	if err := stop(); err != nil {
		t.Errorf("stop() = %v, want nil", err)
	}
	if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cause after stop = %v, want context.Canceled", err)
	}
}

// Slowness stays in its bounds; the log shows the measured work, which sets
// referenceWork (the minimum on an idle machine, per build).
func TestCalibration(t *testing.T) {
	best := time.Duration(1 << 62)
	for i := 0; i < 20; i++ {
		best = min(best, calibrate())
	}
	s := Slowness()
	t.Logf("calibration work: best of 20 %v, reference %v, slowness now %.2f", best, time.Duration(referenceWork), s)
	if s < 1 || s > maxSlowness {
		t.Errorf("Slowness() = %v, want within [1, %v]", s, maxSlowness)
	}
	if b := Budget(time.Second); b < time.Second || b > maxSlowness*time.Second {
		t.Errorf("Budget(1s) = %v", b)
	}
}

// An upstream that answers a POST as soon as it has read the body, behind
// Proxy: every response arrives whole (see Proxy for the race a bare
// ReverseProxy loses).
func TestProxyKeepsEveryResponse(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %d\n\n", len(b))
		w.(http.Flusher).Flush()
		// Not a wait for anything: the pause keeps the response open
		// while the proxy's body copy ends, the moment the race is lost
		// in (36 of 2 000 without full duplex here; with a channel for a
		// pause, or eight clients at once, 0–1).
		time.Sleep(50 * time.Microsecond)
		fmt.Fprint(w, "data: end\n\n")
	}))
	t.Cleanup(up.Close)
	target, _ := url.Parse(up.URL)
	var logged lockedBuilder
	rp := &httputil.ReverseProxy{
		Rewrite:  func(r *httputil.ProxyRequest) { r.SetURL(target) },
		ErrorLog: log.New(&logged, "", 0),
	}
	front := httptest.NewServer(Proxy(rp))
	t.Cleanup(front.Close)
	body := strings.Repeat("x", 989)
	want := "data: 989\n\ndata: end\n\n"
	const posts = 2000
	var cut []string
	for i := range posts {
		res, err := http.Post(front.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(got) != want {
			cut = append(cut, fmt.Sprintf("POST %d: %q, %v", i, got, err))
		}
	}
	if len(cut) > 0 || logged.String() != "" {
		t.Errorf("responses cut short through Proxy: %d of %d\n%s\nthe proxy logged:\n%s", len(cut), posts, strings.Join(cut, "\n"), logged.String())
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
