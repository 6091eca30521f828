// Package layers holds the test of the module's one-way data flow: no
// package imports one above it, production or test files.
package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's path: the imports this test ranks start with it.
const module = "github.com/tfrs/a2a-progress"

// layers are the module's top directories from the bottom up: the data
// flows envelope → schema → merge → terminal → client → relay →
// cmd/a2a-tail, with examples on top, and internal/ (its top-level
// packages) below all of them. A subpackage is in its top directory's layer
// (envelope/emit is the envelope layer, client/agenttest and
// client/internal/projection the client layer).
var layers = []string{"internal", "envelope", "schema", "merge", "terminal", "client", "relay", "cmd", "examples"}

// allowed are the arrows the design has upwards, all of them from tests of
// a package to the packages that use its output. An entry is "importer
// imports imported" (or "importer tests import imported") with its reason, and an entry no
// package uses any more fails the test, so that the list stays the truth.
var allowed = map[string]string{
	// A producer's test reads what it produced with the consumer: emit's
	// over-the-wire test and its example run a real agent and read its
	// stream with package client, checking the views that arrive.
	module + "/envelope/emit tests import " + module + "/client": "emit's output read by the consumer",
	module + "/envelope/emit tests import " + module + "/schema": "emit's output read by the consumer",
	// The JSON Schemas that package schema publishes describe what the
	// layers above produce: its test validates the views, ops and outcomes
	// that merge, terminal and the reference callee's trajectory really make.
	module + "/schema tests import " + module + "/merge":            "the schemas checked against real values",
	module + "/schema tests import " + module + "/terminal":         "the schemas checked against real values",
	module + "/schema tests import " + module + "/client/agenttest": "the schemas checked against real values",
}

// pkg is what go list says of a package.
type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
	Error                              *struct{ Err string }
}

// layerOf is the rank of a package of the module in layers, and its layer's
// name; -1 for a top directory that is in no layer.
func layerOf(path string) (int, string) {
	top, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(path, module), "/"), "/")
	return slices.Index(layers, top), top
}

// TestNoImportClimbs fails once per import that goes up the data flow.
func TestNoImportClimbs(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command:", err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", "./...")
	cmd.Dir = filepath.Join("..", "..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var seen []string
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		n++
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		from, fromLayer := layerOf(p.ImportPath)
		if from < 0 {
			t.Errorf("%s is in no layer: its top directory %q is not in the data flow (add it to layers)", p.ImportPath, fromLayer)
			continue
		}
		for _, imp := range []struct {
			who   string
			paths []string
		}{{"imports", p.Imports}, {"tests import", uniq(append(p.TestImports, p.XTestImports...))}} {
			for _, q := range imp.paths {
				if q != module && !strings.HasPrefix(q, module+"/") {
					continue
				}
				to, toLayer := layerOf(q)
				if to <= from {
					continue
				}
				arrow := p.ImportPath + " " + imp.who + " " + q
				if _, ok := allowed[arrow]; ok {
					seen = append(seen, arrow)
					continue
				}
				if from == 0 {
					t.Errorf("%s: internal/ is below every public package, so it imports none", arrow)
					continue
				}
				t.Errorf("%s: the %s layer is above the %s layer (%s)", arrow, toLayer, fromLayer, strings.Join(layers[1:], " → "))
			}
		}
	}
	if n < 20 {
		t.Fatalf("go list gave %d packages: not the module?", n)
	}
	for arrow := range allowed {
		if !slices.Contains(seen, arrow) {
			t.Errorf("allowed arrow %q is used by no package any more: delete it", arrow)
		}
	}
}

// uniq sorts paths and drops the repeats (a package's internal and external
// tests often import the same package).
func uniq(paths []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(paths)))
}
