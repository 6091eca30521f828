package main

import (
	"strings"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
)

// The rendering of nested calls (the nesting extension, PROTOCOL.md §10):
// a sub-agent's calls and blocks, forwarded by the agent into one of its
// tool calls, are shown under that call — indented in the append-only
// lines, inside the call in the live view.

// nestIndent is what a nested item's lines get per level in the live view.
const nestIndent = "   ┆ "

// nestSplit splits v into what is shown at its top level and, per call of
// that level, the view of everything under it, at any depth: a call the
// view gives a depth whose parent is a call of v, and any other block
// whose parent is a call of v, go into the part of their top-level
// ancestor. A part keeps v's task, turn and seal; applied to a part,
// nestSplit finds the next level down. It is a function of v alone.
func nestSplit(v schema.View) (schema.View, map[string]schema.View) {
	calls := make(map[string]bool, len(v.ToolCalls))
	nested := false
	for _, t := range v.ToolCalls {
		calls[t.Key] = true
		nested = nested || t.Parent != ""
	}
	for i := range v.Blocks {
		nested = nested || v.Blocks[i].Parent != ""
	}
	if !nested {
		return v, nil
	}
	// under is the call an item belongs under, "" for the top level.
	callParent := make(map[string]string, len(v.ToolCalls))
	for _, t := range v.ToolCalls {
		if t.Depth > 0 && calls[t.Parent] && t.Parent != t.Key {
			callParent[t.Key] = t.Parent
		}
	}
	// root is the call of v's top level that key's call is under, itself
	// when it is at the top: the part a nested item goes into, so that the
	// part holds the whole subtree and splitting it finds the next level.
	root := func(key string) string {
		for range merge.MaxDepth + 1 {
			up := callParent[key]
			if up == "" {
				break
			}
			key = up
		}
		return key
	}
	under := func(b *schema.Block) string {
		if key := b.ToolKey(); key != "" && calls[key] &&
			(b.Kind == envelope.KindToolCall || b.Kind == envelope.KindToolOutputAppend) {
			if up := callParent[key]; up != "" { // a call's own block goes where the call goes
				return root(up)
			}
			return ""
		}
		if calls[b.Parent] {
			return root(b.Parent)
		}
		return ""
	}
	top := v
	top.Blocks, top.ToolCalls = nil, nil
	kids := make(map[string]schema.View)
	part := func(key string) schema.View {
		if key == "" {
			return top
		}
		k, ok := kids[key]
		if !ok {
			k = schema.View{Task: v.Task, Turn: v.Turn, Sealed: v.Sealed}
		}
		return k
	}
	for i := range v.Blocks {
		key := under(&v.Blocks[i])
		p := part(key)
		p.Blocks = append(p.Blocks, v.Blocks[i])
		if key == "" {
			top = p
		} else {
			kids[key] = p
		}
	}
	for _, t := range v.ToolCalls {
		key := callParent[t.Key]
		if key != "" {
			key = root(key)
		}
		p := part(key)
		p.ToolCalls = append(p.ToolCalls, t)
		if key == "" {
			top = p
		} else {
			kids[key] = p
		}
	}
	return top, kids
}

// nestedLines writes, under the lines of call key in the live view, the
// frame of what belongs under it, each line indented by nestIndent.
func (s *liveSink) nestedLines(b *strings.Builder, kids map[string]schema.View, key string) {
	kv, ok := kids[key]
	if !ok {
		return
	}
	for _, l := range strings.SplitAfter(s.body(kv), "\n") {
		if l != "" {
			b.WriteString(paint(s.color, dim, nestIndent) + l)
		}
	}
}

// lineNesting gives the append-only lines their nesting: it learns each
// call's parent from the blocks as they are applied, so a block's line is
// indented by its depth (capped at merge.MaxDepth). Its memory is one
// entry per nested call, under the turn's stream-key cap.
type lineNesting struct {
	parent map[string]string // call key → the parent its naming block gave
}

// indent returns line, blockLine's rendering of e (its seq column, then
// the block; a chunk's further lines under it), indented after the seq
// column for e's depth: "  5   ↳ tool_call search …".
func (n *lineNesting) indent(e envelope.Envelope, line string) string {
	if e.Parent == "" || len(line) < 4 {
		return line
	}
	if key := e.ToolKey(); key != "" && (e.Kind == envelope.KindToolCall || e.Kind == envelope.KindToolOutputAppend) {
		if n.parent == nil {
			n.parent = make(map[string]string)
		}
		if _, ok := n.parent[key]; !ok && len(n.parent) < merge.DefaultCaps().MaxStreamKeys {
			n.parent[key] = e.Parent
		}
	}
	d := 1
	for p := e.Parent; d < merge.MaxDepth; d++ {
		up, ok := n.parent[p]
		if !ok || up == "" {
			break
		}
		p = up
	}
	pad := strings.Repeat("  ", d-1) + "↳ "
	return line[:4] + pad + strings.ReplaceAll(line[4:], "\n    ", "\n    "+strings.Repeat("  ", d))
}
