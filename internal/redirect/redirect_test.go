package redirect

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A redirect to the same origin keeps the credentials; one to another port
// of the same host (which net/http lets Authorization through to) drops
// them all, the custom header named by the guard too.
func TestGuard(t *testing.T) {
	seen := map[string][]string{}
	record := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen[name] = []string{r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("Cookie")}
		})
	}
	other := httptest.NewServer(record("other"))
	defer other.Close()
	mux := http.NewServeMux()
	mux.Handle("/same", record("same"))
	mux.HandleFunc("/to-same", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/same", http.StatusFound) })
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/", http.StatusFound)
	})
	home := httptest.NewServer(mux)
	defer home.Close()

	hc := &http.Client{}
	Guard(hc, http.Header{"X-Api-Key": {"k"}})
	for _, path := range []string{"/to-same", "/to-other"} {
		req, _ := http.NewRequest(http.MethodGet, home.URL+path, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		req.Header.Set("X-Api-Key", "k")
		req.Header.Set("Cookie", "c=1")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := map[string][]string{
		"same":  {"Bearer s3cret", "k", "c=1"},
		"other": {"", "", ""},
	}
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("headers after the redirects (-want +got):\n%s", d)
	}
}

// Without a CheckRedirect of the caller's, the chain stops at 10 like
// net/http's own; with one, the caller's decides.
func TestGuardLimit(t *testing.T) {
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/", http.StatusFound)
	}))
	defer loop.Close()
	hc := &http.Client{}
	Guard(hc, nil)
	if _, err := hc.Get(loop.URL); err == nil {
		t.Error("an endless redirect loop ended without an error")
	}
	calls := 0
	hc = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		calls++
		return http.ErrUseLastResponse
	}}
	Guard(hc, nil)
	resp, err := hc.Get(loop.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if calls != 1 || resp.StatusCode != http.StatusFound {
		t.Errorf("caller's CheckRedirect ran %d times, status %d; want once, 302", calls, resp.StatusCode)
	}
}
