package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tfrs/a2a-progress/client/agenttest"
	"github.com/tfrs/a2a-progress/internal/schematest"
)

// The JSON Schemas of schema/ (PROTOCOL.md §7) are checked against what
// the CLI really writes: its -o ndjson lines and -o json document over the
// reference callee and the recorded captures. (Package schema's tests
// check the Go values and broken documents.)

// ndjsonLines validates every line of -o ndjson output as an op and
// returns their types, in order.
func ndjsonLines(t *testing.T, op *jsonschema.Schema, what, stdout string) []string {
	t.Helper()
	var types []string
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		schematest.MustValidate(t, op, fmt.Sprintf("%s line %d", what, i+1), []byte(line))
		var head struct{ Type string }
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatal(err)
		}
		types = append(types, head.Type)
	}
	return types
}

func TestSchemasAgainstCLIOutput(t *testing.T) {
	t.Parallel()
	sc := schematest.Compile(t, filepath.Join("..", "..", "schema"))
	srv := startCallee(t, agenttest.Trajectory(8, agenttest.Named("ask"), agenttest.PlainText(2), agenttest.EndIn(a2a.TaskStateInputRequired)))

	t.Run("send", func(t *testing.T) {
		for _, name := range []string{agenttest.RealisticName, "ask"} {
			res := runCLI(t.Context(), testApp(""), "send", "-o", "ndjson", srv.CardURL(agenttest.V1), name)
			types := ndjsonLines(t, sc["op"], name, res.Stdout)
			if n := len(types); n < 3 || types[n-2] != "seal" || types[n-1] != "result" {
				t.Errorf("%s: line types %v, want blocks, seal, result", name, types)
			}
		}
	})

	t.Run("replay", func(t *testing.T) {
		captures, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", "*", "*.sse"))
		if err != nil || len(captures) < 20 {
			t.Fatalf("captures: %d (%v)", len(captures), err)
		}
		for _, path := range captures {
			if strings.HasSuffix(path, "query.sse") {
				continue // not an A2A stream: see TestQueryCommand
			}
			res := runCLI(t.Context(), testApp(""), "replay", "-o", "ndjson", path)
			ndjsonLines(t, sc["op"], path, res.Stdout)
		}
	})

	t.Run("json", func(t *testing.T) {
		res := runCLI(t.Context(), testApp(""), "send", "-o", "json", srv.CardURL(agenttest.V1), agenttest.RealisticName)
		var doc struct {
			View    json.RawMessage `json:"view"`
			Outcome json.RawMessage `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
			t.Fatal(err)
		}
		schematest.MustValidate(t, sc["view"], "-o json view", doc.View)
		schematest.MustValidate(t, sc["op"], "-o json outcome", doc.Outcome)
	})
}
