package textcut

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestBeforeAfter(t *testing.T) {
	const s = "aé€😀" // 1 + 2 + 3 + 4 bytes: boundaries 0 1 3 6 10
	var before, after []int
	for i := -1; i <= len(s)+1; i++ {
		before = append(before, Before(s, i))
		after = append(after, After(s, i))
	}
	// i = -1 … 11
	if d := cmp.Diff([]int{0, 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10}, before); d != "" {
		t.Errorf("Before (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{0, 0, 1, 3, 3, 6, 6, 6, 10, 10, 10, 10, 10}, after); d != "" {
		t.Errorf("After (-want +got):\n%s", d)
	}
	// Not UTF-8: continuation bytes only. Before finds no boundary.
	if got := Before("\x80\x80\x80", 2); got != 0 {
		t.Errorf("Before of continuation bytes = %d, want 0", got)
	}
}

func FuzzCutsAreValid(f *testing.F) {
	f.Add("aé€😀", 4)
	f.Fuzz(func(t *testing.T, s string, i int) {
		if !utf8.ValidString(s) {
			return
		}
		b, a := Before(s, i), After(s, i)
		if !utf8.ValidString(s[:b]) || !utf8.ValidString(s[b:]) || !utf8.ValidString(s[:a]) || !utf8.ValidString(s[a:]) {
			t.Errorf("Before %d / After %d split a rune of %q", b, a, s)
		}
		if c := min(max(i, 0), len(s)); b > c || a < c {
			t.Errorf("Before %d, After %d around %d", b, a, c)
		}
	})
}

// Cut keeps a short string whole, cuts a long one on a rune boundary and
// says how many bytes there were.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s     string
		limit int
		want  string
	}{
		{"short", 8, "short"},
		{"exactly8", 8, "exactly8"},
		{"ééééé", 5, "éé… [cut: 10 bytes in all, 4 shown]"},
		{"abc", 0, "… [cut: 3 bytes in all, 0 shown]"},
		{"\x80\x80\x80", 2, "… [cut: 3 bytes in all, 0 shown]"},
	} {
		if diff := cmp.Diff(tc.want, Cut(tc.s, tc.limit)); diff != "" {
			t.Errorf("Cut(%q, %d) (-want +got):\n%s", tc.s, tc.limit, diff)
		}
	}
}
