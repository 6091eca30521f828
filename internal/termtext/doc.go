// Package termtext turns text a peer sent into what may reach a terminal.
// It is a2a-tail's one place for that job:
//
//   - Printable escapes control characters (caret notation: ESC as ^[),
//     C1 controls and invalid UTF-8 (U+FFFD) and the invisible formatting
//     characters, bidi controls among them (<U+202E>), so that a peer can
//     neither drive the terminal nor make text read other than it is;
//   - Peer is the form of a peer's message (an error, an id, a reason):
//     the password of every URL in it redacted, cut to MaxPeerBytes on a
//     rune boundary with a marker that says how long it was, then made
//     Printable; Data is the same for a JSON value, which JSONSafe (or a
//     JSONWriter) escapes instead;
//   - RuneWidth and Columns measure display width in terminal columns
//     (wide CJK and emoji take two, combining marks none), and Clip cuts a
//     line to a number of columns.
//
// The package imports no other package of the module but internal/textcut,
// so that its tests and FuzzPrintable build in seconds.
package termtext
