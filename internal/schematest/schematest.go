// Package schematest compiles the JSON Schemas of the repository's schema/
// directory (PROTOCOL.md §7) and validates documents against them, for the
// tests that check real output against the contract: package schema's
// (Go values) and a2a-tail's (the CLI's output).
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6: a maintained
// implementation of draft 2020-12 (if/then/else, $ref across documents,
// $defs) that passes the official JSON-Schema-Test-Suite, with no
// dependencies of its own beyond golang.org/x/text. Writing a validator for
// these keywords by hand would be a second implementation of the very
// contract under test.
package schematest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Base is the $id prefix of the schemas.
const Base = "https://github.com/tfrs/a2a-progress/schema/"

// Compile compiles the four schemas in dir (the schema/ directory) and
// returns them by name: "envelope", "op", "result", "view".
func Compile(t testing.TB, dir string) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	names := []string{"envelope.schema.json", "op.schema.json", "result.schema.json", "view.schema.json"}
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if id, _ := doc.(map[string]any)["$id"].(string); id != Base+name {
			t.Fatalf("%s: $id %q, want %q", name, id, Base+name)
		}
		if err := c.AddResource(Base+name, doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range names {
		sch, err := c.Compile(Base + name)
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		out[strings.TrimSuffix(name, ".schema.json")] = sch
	}
	return out
}

// Validate reports whether doc is valid against sch, and why not.
func Validate(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// MustValidate fails t when doc is not valid against sch.
func MustValidate(t testing.TB, sch *jsonschema.Schema, what string, doc []byte) {
	t.Helper()
	if err := Validate(sch, doc); err != nil {
		t.Errorf("%s does not validate against %s:\n%s\n%v", what, sch.Location, doc, err)
	}
}
