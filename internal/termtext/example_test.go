package termtext_test

import (
	"fmt"

	"github.com/tfrs/a2a-progress/internal/termtext"
)

// A peer's error message: the URL's password is redacted, and the escape
// sequence that would retitle the window and the right-to-left override
// that would reverse the text after it are shown, not acted on.
func ExamplePeer() {
	fmt.Println(termtext.Peer("Get \"http://user:pw@host/x\": \x1b]0;pwned\x07 refused \u202etxt.exe"))
	// Output: Get "http://user:***@host/x": ^[]0;pwned^G refused <U+202E>txt.exe
}

// A line of the live view cut to 10 columns: a wide rune takes two.
func ExampleClip() {
	line := "✓ 中文 tool output"
	fmt.Println(termtext.Columns(line), termtext.Clip(line, 10))
	// Output: 18 ✓ 中文 to…
}
