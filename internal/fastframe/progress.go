package fastframe

import (
	"bytes"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/internal/jsonstr"
)

// Progress is a plain progress frame as [Decoder.Read] returns it: what
// the client reads of a working status update — its task, context, state
// and timestamp, and the tfrs string its one part carries — without the
// a2a-go message. It travels through a2a-go's client as an a2a.Event (the
// embedded TaskStatusUpdateEvent, whose Status.Message is nil); the client
// parses Tfrs as the envelope (package envelope, above this one) and,
// when it is not a valid one, asks for a2a-go's event ([Progress.Event])
// to read the text fallback from the whole message.
//
// Its fields are equal to a2a-go's decoding of the same frame: the ids,
// state and timestamp of the event, Tfrs to the message's
// metadata["tfrs"], Event to the whole event (FuzzFastVsA2A checks it:
// CompareRead). It is the Decoder's own, overwritten by its next Read,
// and Tfrs may be a view of the frame: read it, copy what you keep, never
// hold it.
type Progress struct {
	a2a.TaskStatusUpdateEvent
	// Tfrs is the contents of the part's metadata["tfrs"] string,
	// unescaped.
	Tfrs []byte
	ts   time.Time
	d    *Decoder
}

// Event returns a2a-go's event of the frame, message included, as
// [Decoder.Decode] gives it: for a frame whose Tfrs is no valid envelope,
// whose text fallback reads the whole message. Call it at most once, before
// the Decoder's next Read.
func (p *Progress) Event() *a2a.TaskStatusUpdateEvent {
	ev, _ := p.d.build()
	return ev
}

// tfrs is the metadata key of the envelope (PROTOCOL.md §2.1), as raw
// JSON key bytes compare with it.
const tfrs = "tfrs"

// progress returns the Progress of the frame scan accepted, or nil when
// it is not plain progress: not a working or submitted state, no message,
// not exactly one part, no tfrs string, or a repeated metadata key
// (a2a-go's map would keep the last).
func (d *Decoder) progress() *Progress {
	st := &d.blk.ev.Status
	if (st.State != a2a.TaskStateWorking && st.State != a2a.TaskStateSubmitted) || st.Message == nil || len(d.parts) != 1 {
		return nil
	}
	ps := d.parts[0]
	if !ps.hasMeta {
		return nil
	}
	val := -1
	meta := func(j int) []byte { return d.raw(int(ps.meta) + 2*j) }
	for j := 0; j < int(ps.nmeta); j++ {
		if string(meta(j)) == tfrs {
			val = int(ps.meta) + 2*j + 1
		}
	}
	// Repeated keys: compared pairwise among a few; among more, neighbours
	// in sorted order (pairwise, a hostile part of a million keys would
	// cost 10^12 compares; the order costs 4 bytes a key).
	if ps.nmeta <= 8 {
		for j := 0; j < int(ps.nmeta); j++ {
			for i := j + 1; i < int(ps.nmeta); i++ {
				if string(meta(i)) == string(meta(j)) {
					return nil
				}
			}
		}
	} else {
		order := make([]int32, ps.nmeta)
		for j := range order {
			order[j] = int32(j)
		}
		slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(meta(int(a)), meta(int(b))) })
		for j := 1; j < len(order); j++ {
			if bytes.Equal(meta(int(order[j-1])), meta(int(order[j]))) {
				return nil
			}
		}
	}
	if val < 0 {
		return nil
	}
	b := d.raw(val)
	if d.spans[val].esc {
		b = d.esc // decoded by metadata: val is the one tfrs value
	}
	p := &d.prog
	*p = Progress{Tfrs: b, d: d}
	p.TaskID = a2a.TaskID(d.id(&d.taskID, evTaskID))
	p.ContextID = d.id(&d.contextID, evContextID)
	p.Status.State = st.State
	if st.Timestamp != nil {
		p.ts = d.blk.ts
		p.Status.Timestamp = &p.ts
	}
	return p
}

// raw returns the raw contents of span k.
func (d *Decoder) raw(k int) []byte {
	sp := d.spans[k]
	return d.b[sp.off : sp.off+sp.n]
}

// id returns the value of the string field f of the frame, the copy in
// *last when it is equal (compared in place: a stream's frames all name
// the same task), else a new copy, kept in *last.
func (d *Decoder) id(last *string, f field) string {
	for k := range d.spans {
		sp := d.spans[k]
		if sp.dst != f {
			continue
		}
		raw := d.b[sp.off : sp.off+sp.n]
		if !sp.esc && string(raw) == *last {
			return *last
		}
		if sp.esc {
			*last = string(jsonstr.AppendUnescaped(nil, raw))
		} else {
			*last = string(raw)
		}
		return *last
	}
	return ""
}
