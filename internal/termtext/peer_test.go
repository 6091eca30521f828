package termtext

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPeer(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2000 bytes
	got := Peer("err: " + long)
	want := "err: " + strings.Repeat("é", 509) + "… [cut: 2005 bytes in all, 1023 shown]"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cut (-want +got):\n%s", d)
	}
	for in, want := range map[string]string{
		`Get "http://user:pw@h:1/x": refused`:         `Get "http://user:***@h:1/x": refused`,
		"a https://u:p@a/ and http://v:q@b:2 c":       "a https://u:***@a/ and http://v:***@b:2 c",
		"http://user@h/ has no password":              "http://user@h/ has no password",
		"no url: user:pw@host":                        "no url: user:pw@host",
		"http://u:p:q@h/ a colon in the password too": "http://u:***@h/ a colon in the password too",
	} {
		if got := Peer(in); got != want {
			t.Errorf("Peer(%q) = %q, want %q", in, got, want)
		}
	}
}
