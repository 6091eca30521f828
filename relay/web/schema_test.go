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
// Schemas of schema/ (PROTOCOL.md §7): every view and result, and every op
// a receiver did not reject — but for the vector "invalid", whose accepted
// lines use what only the decoders take: a null for an absent field, and
// a2a-tail's exitCode holding any JSON. And the op schema refuses, as the
// decoders do, a key that is not exactly one of the op form's.
func TestVectorsMatchSchemas(t *testing.T) {
	t.Parallel()
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
	block := `{"type":"block","task":"t1","turn":"m1","streamKey":"c1","seq":1,"id":"","kind":"tool_call","status":"running","payload":{"tool":"grep"%s},"source":"envelope"%s}`
	result := `{"type":"result","task":"t1","turn":"m1","state":"TASK_STATE_COMPLETED","verdict":"completed","artifacts":[{"id":"a","text":"t"%s}],"counters":{"applied":0,"duplicates":0,"conflicts":0,"late":0,"gaps":0,"droppedAfterSeal":0,"droppedByCap":0%s}%s}`
	for _, bad := range []string{
		fmt.Sprintf(block, "", `,"SEQ":2`), fmt.Sprintf(block, "", `,"ſeq":2`), fmt.Sprintf(block, "", `,"extra":1`),
		fmt.Sprintf(block, `,"Tool":"x"`, ""), fmt.Sprintf(result, `,"mime":"x"`, "", ""),
		fmt.Sprintf(result, "", `,"Applied":1`, ""), fmt.Sprintf(result, "", "", `,"Reply":"x"`),
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if opSchema.Validate(inst) == nil {
			t.Errorf("op schema accepts %s", bad)
		}
	}
	// exitCode and schemaVersion, a2a-tail's, are the op form's.
	check(t, opSchema, "a2a-tail's result line", fmt.Sprintf(result, "", "", `,"exitCode":0,"schemaVersion":1`))
	for _, v := range vectors(t) {
		if v.name == "invalid" {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			r := receiveVector(t, v)
			for i, view := range r.Views {
				check(t, viewSchema, fmt.Sprintf("view %d", i), view)
			}
			if r.Result != "null" {
				check(t, resultSchema, "result", r.Result)
			}
			for i, op := range v.ops {
				if r.Effects[i] != "invalid" {
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
