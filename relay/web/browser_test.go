package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/internal/testdep/chromium"
)

// browserReport is what testdata/browser.html posts.
type browserReport struct {
	Vectors   int      `json:"vectors"`
	Failures  []string `json:"failures"`
	UserAgent string   `json:"userAgent"`
	Error     string   `json:"error"`
}

// TestBrowser runs receiver.js over every golden vector in a real headless
// Chromium: the module as a browser loads it (BigInt, private fields,
// TextEncoder), not only as node runs it. Not parallel: its goleak check
// sees every goroutine of the process, so it runs before the parallel tests.
func TestBrowser(t *testing.T) {
	testdep.ChromiumPath(t, "the check of receiver.js in a browser") // before goleak: a skip leaves nothing behind
	// A cleanup registered before the browser's: it runs after them, once
	// the allocator's cancel has waited for Chromium to exit (a deferred
	// check ran before that, and on a busy machine caught the browser's
	// output readers still draining).
	t.Cleanup(func() { goleak.VerifyNone(t) })

	names, err := filepath.Glob(filepath.Join(vectorDir, "*.ops.ndjson"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no vectors in %s: %v", vectorDir, err)
	}
	for i, n := range names {
		names[i] = strings.TrimSuffix(filepath.Base(n), ".ops.ndjson")
	}
	reports := make(chan browserReport, 1)
	mux := http.NewServeMux()
	serve := func(path, file, contentType string) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			b, err := os.ReadFile(file)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", contentType)
			w.Write(b)
		})
	}
	serve("/{$}", "testdata/browser.html", "text/html; charset=utf-8")
	serve("/receiver.js", "receiver.js", "text/javascript; charset=utf-8")
	mux.HandleFunc("GET /ops/{file}", func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(vectorDir, filepath.Base(r.PathValue("file"))))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(b)
	})
	mux.HandleFunc("GET /vectors", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(names)
	})
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		var rep browserReport
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			rep.Error = "undecodable report: " + err.Error()
		}
		select {
		case reports <- rep:
		default:
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	browser := chromium.Start(t, ctx, "the check of receiver.js in a browser")
	navigated := make(chan error, 1)
	go func() { navigated <- chromedp.Do(browser, chromedp.Navigate(srv.URL+"/")) }()

	budget := testdep.Budget(3 * time.Minute) // a guard against a hang, not a synchronisation
	guard := time.NewTimer(budget)
	defer guard.Stop()
	var rep browserReport
	for got := false; !got; {
		select {
		case rep = <-reports:
			got = true
		case err := <-navigated:
			if err != nil {
				t.Fatalf("chromium could not load the page: %v", err)
			}
			navigated = nil // loaded; the page's report is still to come
		case <-guard.C:
			t.Fatalf("no report from the page in %v", budget)
		}
	}
	cancel()
	if rep.Error != "" {
		t.Fatalf("the page failed: %s", rep.Error)
	}
	if len(rep.Failures) > 0 || rep.Vectors != len(names) {
		t.Fatalf("in %s: %d of %d vectors run, failures: %v", rep.UserAgent, rep.Vectors, len(names), rep.Failures)
	}
	t.Logf("%s: %d vectors pass", rep.UserAgent, rep.Vectors)
}
