package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b, "testdata/src", true); err != nil {
		t.Fatal(err)
	}
	want := `p                           6 identifiers    4 fields
total                       6 identifiers    4 fields
p const C
p field T.(embedded)
p field T.A
p field T.B
p field U.M
p func F
p method T.M
p type T
p type U
p var V
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("apicount (-want +got):\n%s", d)
	}
	if err := run(&b, "testdata/nowhere", false); err == nil {
		t.Error("a missing directory gave no error")
	}
}
