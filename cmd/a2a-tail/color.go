package main

import (
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/schema"
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

func toolColor(s schema.ToolStatus) string {
	switch s {
	case schema.ToolDone:
		return green
	case schema.ToolAborted:
		return red
	case schema.ToolUnfinished:
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
