package main

import (
	"strconv"
	"strings"
)

// vt is a minimal terminal emulator for testing the live view: it keeps the
// screen as lines of runes and understands what liveSink writes — text,
// "\n" (as CR LF, what the tty's onlcr does), CSI n F (cursor to the start
// of the line n up), CSI J (erase to the end of the screen), CSI K (erase to
// the end of the line) and SGR (ignored). Anything else fails the test via
// unknown.
type vt struct {
	lines    [][]rune
	row, col int
	unknown  []string
}

func (t *vt) Write(p []byte) (int, error) {
	s := string(p)
	for i := 0; i < len(s); {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) {
				t.unknown = append(t.unknown, s[i:])
				return len(p), nil
			}
			arg, cmd := s[i+2:j], s[j]
			n, _ := strconv.Atoi(arg)
			switch cmd {
			case 'F':
				if n == 0 {
					n = 1
				}
				t.row, t.col = max(t.row-n, 0), 0
			case 'J':
				t.ensure()
				t.lines[t.row] = t.lines[t.row][:min(t.col, len(t.lines[t.row]))]
				t.lines = t.lines[:t.row+1]
			case 'K':
				t.ensure()
				t.lines[t.row] = t.lines[t.row][:min(t.col, len(t.lines[t.row]))]
			case 'm':
			default:
				t.unknown = append(t.unknown, s[i:j+1])
			}
			i = j + 1
			continue
		}
		r, size := decodeRune(s[i:])
		i += size
		switch r {
		case '\n':
			t.row++
			t.col = 0
		case '\r':
			t.col = 0
		default:
			t.ensure()
			line := t.lines[t.row]
			for len(line) < t.col {
				line = append(line, ' ')
			}
			if t.col < len(line) {
				line[t.col] = r
			} else {
				line = append(line, r)
			}
			t.lines[t.row] = line
			t.col++
		}
	}
	return len(p), nil
}

func (t *vt) ensure() {
	for len(t.lines) <= t.row {
		t.lines = append(t.lines, nil)
	}
}

// screen returns the visible lines, trailing empty lines dropped.
func (t *vt) screen() []string {
	var out []string
	for _, l := range t.lines {
		out = append(out, strings.TrimRight(string(l), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
