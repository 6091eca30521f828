package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
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
// TextEncoder), not only as node runs it.
func TestBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		skipOrFail(t, "chromium is not installed (not in PATH): receiver.js is NOT checked in a browser")
	}
	defer goleak.VerifyNone(t)

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

	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), srv.URL+"/")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()

	var rep browserReport
	select {
	case rep = <-reports:
	case err := <-exited:
		t.Fatalf("chromium exited before the page reported: %v\n%s", err, out.String())
	case <-time.After(3 * time.Minute): // a guard against a hang, not a synchronisation
		t.Fatalf("no report from the page in 3 minutes\n%s", out.String())
	}
	if rep.Error != "" {
		t.Fatalf("the page failed: %s", rep.Error)
	}
	if len(rep.Failures) > 0 || rep.Vectors != len(names) {
		t.Fatalf("in %s: %d of %d vectors run, failures: %v", rep.UserAgent, rep.Vectors, len(names), rep.Failures)
	}
	t.Logf("%s: %d vectors pass", rep.UserAgent, rep.Vectors)
}
