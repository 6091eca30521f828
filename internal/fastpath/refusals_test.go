package fastpath

import (
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"
)

// A streaming call the peer refuses (a status other than 200) ends with
// the error a2a-go's own transport gives for it — the same text, the same
// A2A error with its details — on every HTTP binding and version, for
// both streaming calls: the fast path's transport makes these calls
// itself and must not change what a refusal means (a TASK_NOT_FOUND
// refusal of SubscribeToTask is what sends a Follow to GetTask).
func TestFastPathSameRefusals(t *testing.T) {
	t.Parallel()
	const notFound = `{"error":{"code":404,"status":"NOT_FOUND","message":"no such task","details":[` +
		`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"k":"v"}},` +
		`{"@type":"type.googleapis.com/google.protobuf.Struct","hint":"gone"}]}}`
	refusals := map[string]struct {
		status      int
		contentType string
		body        string
	}{
		"not found":         {404, "application/json", notFound},
		"not found charset": {404, "application/json; charset=utf-8", notFound},
		"plain text":        {500, "text/plain", "boom"},
		"bad json":          {400, "application/json", `{"error":`},
		"no body":           {503, "", ""},
	}
	for name, r := range refusals {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if r.contentType != "" {
				w.Header().Set("Content-Type", r.contentType)
			}
			w.WriteHeader(r.status)
			w.Write([]byte(r.body))
		}))
		t.Cleanup(srv.Close)
		hc := srv.Client()
		u, err := url.Parse(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		rest0, err := a2av0.NewRESTTransport(a2av0.RESTTransportConfig{URL: srv.URL, Client: hc})
		if err != nil {
			t.Fatal(err)
		}
		bindings := map[string]struct {
			a2ago   a2aclient.Transport
			v1, rpc bool
		}{
			"jsonrpc-1.0": {a2aclient.NewJSONRPCTransport(srv.URL, hc), true, true},
			"rest-1.0":    {a2aclient.NewRESTTransport(u, hc), true, false},
			"jsonrpc-0.3": {a2av0.NewJSONRPCTransport(a2av0.JSONRPCTransportConfig{URL: srv.URL, Client: hc}), false, true},
			"rest-0.3":    {rest0, false, false},
		}
		for bname, b := range bindings {
			fast := &fastTransport{Transport: b.a2ago, hc: hc, endpoint: srv.URL, base: u, v1: b.v1, rpc: b.rpc}
			calls := map[string]func(a2aclient.Transport) iter.Seq2[a2a.Event, error]{
				"send": func(tr a2aclient.Transport) iter.Seq2[a2a.Event, error] {
					return tr.SendStreamingMessage(t.Context(), nil, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("go"))})
				},
				"subscribe": func(tr a2aclient.Transport) iter.Seq2[a2a.Event, error] {
					return tr.SubscribeToTask(t.Context(), nil, &a2a.SubscribeToTaskRequest{ID: "t-1"})
				},
			}
			for cname, call := range calls {
				t.Run(name+"/"+bname+"/"+cname, func(t *testing.T) {
					first := func(tr a2aclient.Transport) error {
						for _, err := range call(tr) {
							return err
						}
						t.Fatal("the call yielded nothing")
						return nil
					}
					want, got := first(b.a2ago), first(fast)
					if want == nil || got == nil {
						t.Fatalf("errors: a2a-go %v, fast path %v; want both", want, got)
					}
					if diff := cmp.Diff(want.Error(), got.Error()); diff != "" {
						t.Errorf("error text (-a2a-go +fast path):\n%s", diff)
					}
					var wa, ga *a2a.Error
					if errors.As(want, &wa) != errors.As(got, &ga) {
						t.Fatalf("A2A error: a2a-go %T, fast path %T", want, got)
					}
					if wa != nil {
						if diff := cmp.Diff(*wa, *ga, cmpopts.EquateErrors()); diff != "" {
							t.Errorf("A2A error (-a2a-go +fast path):\n%s", diff)
						}
					}
					for _, s := range []error{a2a.ErrTaskNotFound, a2a.ErrServerError, a2a.ErrParseError} {
						if errors.Is(want, s) != errors.Is(got, s) {
							t.Errorf("errors.Is(err, %v): a2a-go %v, fast path %v", s, errors.Is(want, s), errors.Is(got, s))
						}
					}
				})
			}
		}
	}
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
