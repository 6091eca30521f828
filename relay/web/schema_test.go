package web

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestVectorsMatchSchemas checks the golden vectors against the JSON
// Schemas of schema/ (PROTOCOL.md §7): every view and outcome, and every op
// a receiver did not reject — but for the vector "invalid", whose accepted
// lines use what only the decoders take: key spellings of Go's lenient
// names, and fallback reasons (and result counter reasons) that the schemas
// do not list but the decoders do not check.
func TestVectorsMatchSchemas(t *testing.T) {
	const base = "https://github.com/tfrs/a2a-progress/schema/"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, name := range []string{"envelope", "op", "result", "view"} {
		doc := readJSONSchemaDoc(t, filepath.Join("..", "..", "schema", name+".schema.json"))
		if err := c.AddResource(base+name+".schema.json", doc); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(name string) *jsonschema.Schema {
		s, err := c.Compile(base + name + ".schema.json")
		if err != nil {
			t.Fatalf("compile %s: %v", name, err)
		}
		return s
	}
	opSchema, viewSchema, resultSchema := compile("op"), compile("view"), compile("result")
	check := func(t *testing.T, s *jsonschema.Schema, what, doc string) {
		t.Helper()
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err == nil {
			err = s.Validate(inst)
		}
		if err != nil {
			t.Errorf("%s does not validate:\n%s\n%v", what, doc, err)
		}
	}
	for _, v := range vectors(t) {
		if v.name == "invalid" {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			r := receiveVector(t, v)
			for i, view := range r.Views {
				check(t, viewSchema, fmt.Sprintf("view %d", i), view)
			}
			if r.Outcome != "null" {
				check(t, resultSchema, "outcome", r.Outcome)
			}
			for i, op := range v.ops {
				if r.Results[i] != "invalid" {
					check(t, opSchema, fmt.Sprintf("op line %d", i+1), op)
				}
			}
		})
	}
}

func readJSONSchemaDoc(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}
