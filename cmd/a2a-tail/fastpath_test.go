package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// --fast-path=false makes a2a-go read the stream; the output is the same.
func TestFastPathFlag(t *testing.T) {
	srv := startCallee(t)
	out := map[string]string{}
	for _, flag := range []string{"--fast-path=true", "--fast-path=false"} {
		res := runCLI(t.Context(), testApp(""), "send", flag, "-o", "ndjson", srv.CardURL(agenttest.V1), agenttest.RealisticName)
		if res.Code != exitOK {
			t.Fatalf("%s: exit %d, stderr:\n%s", flag, res.Code, res.Stderr)
		}
		out[flag] = normalise(res.Stdout)
	}
	if diff := cmp.Diff(out["--fast-path=false"], out["--fast-path=true"]); diff != "" {
		t.Errorf("output differs (-a2a-go +fast path):\n%s", diff)
	}
}
