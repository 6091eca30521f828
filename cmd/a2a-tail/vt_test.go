package main

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tfrs/a2a-progress/internal/termtext"
)

// vt is a minimal terminal emulator for testing the live view: it keeps the
// screen as lines of cells and understands what liveSink writes — text,
// "\n" (as CR LF, what the tty's onlcr does), CSI n F (cursor to the start
// of the line n up), CSI n A and CSI n B (cursor up and down, in the column), CSI H (cursor home), CSI J (erase to the end of the
// screen), CSI K and CSI 2K (erase to the end of the line, the whole line)
// and SGR (ignored). Anything else, a control character included, fails
// the test via unknown.
//
// Like tmux (scroll-on-clear, its default), an erase to the end of the
// screen from the screen's top-left corner does not lose the screen: its
// lines up to the last one used go into the scrollback, and the screen
// starts empty under them.
//
// With cols set it behaves like xterm at that width: a wide rune takes two
// cells, and a rune that does not fit on the line wraps to the next one
// (the cursor waits in the last column until the next rune). With rows
// set, only the last rows lines are on screen: the cursor cannot move above
// them (lines above are scrollback).
type vt struct {
	cols, rows int

	lines    [][]rune // cells; a wide rune's second cell is 0
	row, col int
	first    int // the first line on screen (rows set)
	unknown  []string
	clears   int // erases from the top-left corner, each a copy of the screen in the scrollback
	// pending: the end of the last write, an escape sequence or a rune cut
	// by the read (a loaded machine splits the pty's output anywhere); the
	// next write goes on from it.
	pending string
}

func (t *vt) Write(p []byte) (int, error) {
	s := t.pending + string(p)
	t.pending = ""
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 == len(s) {
			t.pending = s[i:]
			return len(p), nil
		}
		if s[i] == 0x1b && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) {
				t.pending = s[i:]
				return len(p), nil
			}
			arg, cmd := s[i+2:j], s[j]
			n, _ := strconv.Atoi(arg)
			switch cmd {
			case 'F':
				if n == 0 {
					n = 1
				}
				t.row, t.col = max(t.row-n, t.first), 0
			case 'J':
				if t.rows > 0 && t.row == t.first && t.col == 0 {
					t.clearToScrollback()
					break
				}
				t.ensure()
				t.lines[t.row] = t.lines[t.row][:min(t.col, len(t.lines[t.row]))]
				t.lines = t.lines[:t.row+1]
			case 'K':
				t.ensure()
				if n == 2 {
					t.lines[t.row] = nil
					break
				}
				t.lines[t.row] = t.lines[t.row][:min(t.col, len(t.lines[t.row]))]
			case 'A', 'B': // cursor up, down: within the screen, never scrolling
				n = max(n, 1)
				if cmd == 'A' {
					t.row = max(t.row-n, t.first)
				} else if t.rows > 0 {
					t.row = min(t.row+n, t.first+t.rows-1)
				} else {
					t.row += n
				}
			case 'H': // cursor home (no arguments): the screen's first line
				t.row, t.col = t.first, 0
			case 'm':
			default:
				t.unknown = append(t.unknown, s[i:j+1])
			}
			i = j + 1
			continue
		}
		if !utf8.FullRuneInString(s[i:]) {
			t.pending = s[i:]
			return len(p), nil
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			t.down()
		case r == '\r':
			t.col = 0
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			t.unknown = append(t.unknown, strconv.QuoteRune(r))
		default:
			w := termtext.RuneWidth(r)
			if t.cols > 0 && t.col+w > t.cols {
				t.down()
			}
			t.ensure()
			line := t.lines[t.row]
			for len(line) < t.col+w {
				line = append(line, ' ')
			}
			line[t.col] = r
			if w == 2 {
				line[t.col+1] = 0
			}
			t.lines[t.row] = line
			t.col += w
		}
	}
	return len(p), nil
}

// down moves the cursor to the start of the next line, scrolling the
// screen when it was on the last one.
func (t *vt) down() {
	t.row, t.col = t.row+1, 0
	if t.rows > 0 && t.row-t.first >= t.rows {
		t.first = t.row - t.rows + 1
	}
}

// clearToScrollback is tmux's erase of the whole screen: the screen's lines
// up to the last one used scroll into the scrollback.
func (t *vt) clearToScrollback() {
	t.clears++
	last := len(t.lines) - 1
	for last >= t.first && strings.TrimSpace(strings.ReplaceAll(string(t.lines[last]), "\x00", "")) == "" {
		last--
	}
	t.lines = t.lines[:last+1]
	t.first, t.row = last+1, last+1
}

// resize is a terminal window resized to cols×rows, as xterm does it: lines
// are not re-wrapped, and when the screen gets shorter than the cursor's
// row, its top lines go into the scrollback.
func (t *vt) resize(cols, rows int) {
	t.cols, t.rows = cols, rows
	if t.row-t.first >= rows {
		t.first = t.row - rows + 1
	}
}

// scrollback is the lines above the screen (rows set).
func (t *vt) scrollback() []string { return t.screen()[:min(t.first, len(t.screen()))] }

func (t *vt) ensure() {
	for len(t.lines) <= t.row {
		t.lines = append(t.lines, nil)
	}
}

// screen returns every line, scrollback included, trailing empty lines
// dropped.
func (t *vt) screen() []string {
	var out []string
	for _, l := range t.lines {
		out = append(out, strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// unknowns is what the terminal did not understand, an escape sequence or
// rune cut off at the end of the output included.
func (t *vt) unknowns() []string {
	if t.pending == "" {
		return t.unknown
	}
	return append(t.unknown[:len(t.unknown):len(t.unknown)], "cut at the end: "+strconv.Quote(t.pending))
}
