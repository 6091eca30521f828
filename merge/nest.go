package merge

import "github.com/tfrs/a2a-progress/schema"

// MaxDepth caps how deep tool calls nest in a view (PROTOCOL.md §10.3): a
// call whose chain of parents is longer — and one whose chain loops — is
// shown at the top level. Nesting adds no memory of its own: a forwarded
// block is an ordinary block of the turn, under the turn's [Caps].
const MaxDepth = 8

// setParent records the parent of the applied envelope r ("" records
// nothing). The map holds applied envelopes only, so Caps.MaxBlocks bounds
// it.
func (c *core) setParent(r *rec, parent string) {
	if parent == "" {
		return
	}
	if c.parents == nil {
		c.parents = make(map[seqKey]string)
	}
	c.parents[seqKey{r.seq, r.key}] = parent
}

// parentOf is the parent of the applied envelope r.
func (c *core) parentOf(r *rec) string {
	if c.parents == nil {
		return ""
	}
	return c.parents[seqKey{r.seq, r.key}]
}

// nestCalls sets the Depth of each call: the length of its chain of
// parents up to a call at the top level (no Parent, or a Parent that is no
// call of the view), when that is at most MaxDepth; 0 otherwise. It is a
// function of the calls alone, so of the set of blocks. A projection's
// call is in a key space of its own (PROTOCOL.md §6.4): it is no parent.
func nestCalls(calls []schema.ToolCall, streams []*stream) {
	var byKey map[string]int
	for i := range calls {
		if calls[i].Parent == "" {
			continue
		}
		if byKey == nil {
			byKey = make(map[string]int, len(calls))
			for j := range calls {
				if !streams[j].proj {
					byKey[calls[j].Key] = j
				}
			}
		}
		calls[i].Depth = depthOf(calls, byKey, i)
	}
}

// depthOf walks up from calls[i] at most MaxDepth+1 steps: past that, the
// chain is too long or loops.
func depthOf(calls []schema.ToolCall, byKey map[string]int, i int) int {
	for d := 0; d <= MaxDepth; d++ {
		j, ok := byKey[calls[i].Parent]
		if calls[i].Parent == "" || !ok {
			return d
		}
		i = j
	}
	return 0
}
