package relay_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/relay"
)

// A Guard over a real socket: which Host, Origin and token pass.
func TestGuard(t *testing.T) {
	t.Parallel()
	g := relay.NewGuard(relay.GuardConfig{
		Hosts:   []string{"progress.example.com:443", "relay.test:8080"},
		Origins: []string{"http://app.test:3000"},
		Token:   "tok",
	})
	srv := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})))
	defer srv.Close()
	type req struct {
		host string
		hdr  []string
	}
	bearer := []string{"Authorization", "Bearer tok"}
	cases := map[string]req{
		"bare host of 443":         {"progress.example.com", bearer},
		"host with port":           {"relay.test:8080", bearer},
		"host, any case":           {"Relay.TEST:8080", bearer},
		"other port":               {"relay.test:8081", bearer},
		"other name":               {"attacker.test:8080", bearer},
		"ip literal (not allowed)": {"127.0.0.1:8080", bearer},
		"own origin":               {"relay.test:8080", append([]string{"Origin", "http://relay.test:8080"}, bearer...)},
		"allowed origin":           {"relay.test:8080", append([]string{"Origin", "http://app.test:3000"}, bearer...)},
		"foreign origin":           {"relay.test:8080", append([]string{"Origin", "http://attacker.test:8080"}, bearer...)},
		"no token":                 {"relay.test:8080", nil},
		"token cookie":             {"relay.test:8080", []string{"Cookie", relay.TokenCookie + "=tok"}},
		"wrong token":              {"relay.test:8080", []string{"Authorization", "Bearer tok2"}},
		"token of another prefix":  {"relay.test:8080", []string{"Authorization", "Bearer to"}},
	}
	want := map[string]string{
		"bare host of 443":         "200 ok",
		"host with port":           "200 ok",
		"host, any case":           "200 ok",
		"other port":               `403 {"error":"relay: Host \"relay.test:8081\" is not a name this server answers to (a DNS-rebinding page sends its own name): open it by one it does"}`,
		"other name":               `403 {"error":"relay: Host \"attacker.test:8080\" is not a name this server answers to (a DNS-rebinding page sends its own name): open it by one it does"}`,
		"ip literal (not allowed)": `403 {"error":"relay: Host \"127.0.0.1:8080\" is not a name this server answers to (a DNS-rebinding page sends its own name): open it by one it does"}`,
		"own origin":               "200 ok",
		"allowed origin":           "200 ok",
		"foreign origin":           `403 {"error":"relay: Origin \"http://attacker.test:8080\" is not allowed"}`,
		"no token":                 `401 {"error":"relay: this server needs its access token: open the URL it printed (with ?token=), or send Authorization: Bearer \u003ctoken\u003e"}`,
		"token cookie":             "200 ok",
		"wrong token":              `401 {"error":"relay: this server needs its access token: open the URL it printed (with ?token=), or send Authorization: Bearer \u003ctoken\u003e"}`,
		"token of another prefix":  `401 {"error":"relay: this server needs its access token: open the URL it printed (with ?token=), or send Authorization: Bearer \u003ctoken\u003e"}`,
	}
	got := map[string]string{}
	for name, c := range cases {
		r, _ := http.NewRequest("GET", srv.URL+"/x", nil)
		r.Host = c.host
		for i := 0; i+1 < len(c.hdr); i += 2 {
			r.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got[name] = resp.Status[:3] + " " + strings.TrimSpace(string(b))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	// AnyIPHost: an address passes (it cannot be rebound), a name does not.
	ip := relay.NewGuard(relay.GuardConfig{AnyIPHost: true})
	srv2 := httptest.NewServer(ip.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv2.Close()
	status := map[string]int{}
	for _, h := range []string{"10.0.0.1:80", "[fe80::1]:8080", "10.0.0.1", "evil.test:80"} {
		r, _ := http.NewRequest("GET", srv2.URL, nil)
		r.Host = h
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		status[h] = resp.StatusCode
	}
	if d := cmp.Diff(map[string]int{"10.0.0.1:80": 200, "[fe80::1]:8080": 200, "10.0.0.1": 200, "evil.test:80": 403}, status); d != "" {
		t.Errorf("AnyIPHost (-want +got):\n%s", d)
	}
}

// A TaskSet keeps its newest ids up to its cap and refuses the rest with
// 404 through its Authorizer; the task "" is the next policy's to decide.
func TestTaskSet(t *testing.T) {
	t.Parallel()
	s := relay.NewTaskSet(2, "a", "b/bad")
	s.Add("b")
	s.Add("c") // a leaves
	s.Add("c")
	auth := s.Authorizer(relay.AllowAll)
	got := map[string]string{}
	for _, id := range []string{"", "a", "b", "c", "b/bad"} {
		if err := auth(nil, id); err != nil {
			got[id] = err.Error()
		} else {
			got[id] = "allowed"
		}
	}
	want := map[string]string{
		"":      "allowed",
		"a":     "relay: task not found: not one started through this relay",
		"b":     "allowed",
		"c":     "allowed",
		"b/bad": "relay: task not found: not one started through this relay",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if s.Len() != 2 {
		t.Errorf("Len %d, want 2", s.Len())
	}
}

// A TaskSet's conversations: a name gets a context of the set's own, the
// same one again, and that context keeps itself; a name the set never saw
// is "" without create; past the cap the oldest goes first.
func TestTaskSetConversation(t *testing.T) {
	t.Parallel()
	s := relay.NewTaskSet(4)
	c := s.Conversation("thread-1", true)
	if c == "" || c == "thread-1" {
		t.Fatalf("Conversation(thread-1) = %q, want a context of the set's own", c)
	}
	got := []string{s.Conversation("thread-1", true), s.Conversation(c, true), s.Conversation("thread-2", false), s.Conversation("bad id", true)}
	if d := cmp.Diff([]string{c, c, "", ""}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	fresh := s.Conversation("", true)
	if fresh == "" || s.Conversation(fresh, false) != fresh {
		t.Errorf("a new unnamed conversation %q is not kept", fresh)
	}
	s.Conversation("thread-3", true) // 5 and 6 of 4: thread-1 and its context leave
	if got := s.Conversation("thread-1", false); got != "" {
		t.Errorf("past the cap, thread-1 still maps to %q", got)
	}
}
