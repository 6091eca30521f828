package main

import (
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
)

// ANSI SGR codes of the text output.
const (
	red    = "31"
	green  = "32"
	yellow = "33"
	blue   = "34"
	dim    = "2"
)

func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func toolColor(s merge.ToolStatus) string {
	switch s {
	case merge.ToolDone:
		return green
	case merge.ToolAborted:
		return red
	case merge.ToolUnfinished:
		return yellow
	}
	return blue
}

func statusColor(s envelope.Status) string {
	switch s {
	case envelope.StatusDone:
		return green
	case envelope.StatusAborted:
		return red
	}
	return blue
}
