package main

import (
	"log/slog"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/merge"
)

// errText is termtext.Peer of an error's message: what of an error reaches
// the terminal.
func errText(err error) string { return termtext.Peer(err.Error()) }

// logAttr is the ReplaceAttr of the stderr logger: every string and error
// value is redacted and cut like any peer text (the text handler quotes
// and escapes what is not printable).
func logAttr(_ []string, a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, termtext.Data(a.Value.String()))
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, termtext.Data(err.Error()))
		}
	}
	return a
}

// caps are the merge caps of the flags (defaults where a flag is 0).
func (a *app) caps() merge.Caps {
	c := merge.DefaultCaps()
	c.MaxTurnBytes = a.turnBytes()
	if a.maxBlocks > 0 {
		c.MaxBlocks = a.maxBlocks
	}
	if a.maxKeys > 0 {
		c.MaxStreamKeys = a.maxKeys
	}
	return c
}

// noticeCap tells the user, once per run, that a cap started dropping
// blocks: which one (the Change names it), and the flag that raises it.
// The result's counters (droppedByCap) say how many in the end.
func (a *app) noticeCap(ch merge.Change) {
	if ch.Effect != merge.DroppedCap || a.capNotice {
		return
	}
	a.capNotice = true
	c := a.caps()
	switch ch.Cap {
	case merge.CapBlocks:
		a.warnf("a2a-tail: cap reached: %d blocks per turn (max blocks); newer blocks are dropped and counted (droppedByCap); raise it with --max-blocks\n", c.MaxBlocks)
	case merge.CapStreamKeys:
		a.warnf("a2a-tail: cap reached: %d tool-call stream keys per turn (max stream keys); newer tool calls are dropped and counted (droppedByCap); raise it with --max-stream-keys\n", c.MaxStreamKeys)
	case merge.CapBytes:
		a.warnf("a2a-tail: cap reached: the turn keeps %d bytes at most (max turn bytes); newer blocks are dropped and counted (droppedByCap); raise it with --max-turn-bytes\n", a.turnBytes())
	default:
		a.warnf("a2a-tail: a block with an identifier over %d bytes was dropped and counted (droppedByCap)\n", envelope.MaxIdentBytes)
	}
}

// turnBytes is the turn's byte budget of the flags.
func (a *app) turnBytes() int64 {
	if a.maxTurnBytes > 0 {
		return a.maxTurnBytes
	}
	return merge.DefaultMaxTurnBytes
}
