package terminal

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/textcut"
	"github.com/tfrs/a2a-progress/schema"
)

// Result returns the outcome in the JSON form a front end gets as the
// turn's result op (schema.Result; PROTOCOL.md §4.3): the verdict in one
// word, decided by State alone, and what goes with it —
//
//   - completed: Reply and Artifacts (id, name, text parts joined
//     with "\n");
//   - failed, rejected, canceled: Error, the callee's reason (the final
//     status message's text; "" when it gave none);
//   - input-required, auth-required: Interrupt, the question (the
//     structured interrupt's message, else the status message's text) and
//     its items;
//   - anything else: verdict incomplete, Error the text of Err (why the
//     turn could not be ended), State the last state observed.
//
// Artifacts are given whenever the turn settled (a failed task may have
// produced some).
//
// Every string of the peer is cut, so that a result op stays small
// whatever the peer sent (see [Cut]): the reason, the question and each
// item's message at [MaxMessageBytes]; artifact ids and names, tool
// names and call ids, the context id at envelope.MaxIdentBytes (the
// identifier limit); the reply at [MaxReplyBytes]. An artifact's text is
// bounded by the artifact limits ([Limits]). The Outcome itself keeps what
// it was given. Counters are left zero: they are the merge's, which
// merge.Turn.ResultOp fills in.
func (o Outcome) Result() schema.Result {
	r := schema.Result{State: string(o.State), Verdict: schema.VerdictOf(string(o.State)), Context: Cut(o.ContextID, envelope.MaxIdentBytes)}
	if r.Verdict == schema.VerdictIncomplete {
		if o.Err != nil {
			r.Error = Cut(o.Err.Error(), MaxMessageBytes)
		}
		return r
	}
	for _, a := range o.Artifacts {
		if a != nil {
			r.Artifacts = append(r.Artifacts, schema.Artifact{ID: Cut(string(a.ID), envelope.MaxIdentBytes), Name: Cut(a.Name, envelope.MaxIdentBytes),
				Text: partsText(a.Parts)})
		}
	}
	r.ArtifactsTruncated = o.Truncated
	switch r.Verdict {
	case schema.VerdictCompleted:
		r.Reply = Cut(o.Reply, MaxReplyBytes)
	case schema.VerdictFailed, schema.VerdictRejected, schema.VerdictCanceled:
		r.Error = Cut(o.Reason, MaxMessageBytes)
	case schema.VerdictInputRequired, schema.VerdictAuthRequired:
		in := &schema.Interrupt{}
		if o.Interrupt != nil {
			in.Question = o.Interrupt.Question
			for _, it := range o.Interrupt.Items {
				in.Items = append(in.Items, schema.InterruptItem{ToolCallID: Cut(it.ToolCallID, envelope.MaxIdentBytes),
					ToolName: Cut(it.ToolName, envelope.MaxIdentBytes), Message: Cut(it.Message, MaxMessageBytes)})
			}
		}
		in.Question = Cut(in.Question, MaxMessageBytes)
		r.Interrupt = in
	}
	return r
}

// The sizes at which [Outcome.Result] cuts a peer's strings, in bytes.
const (
	// MaxMessageBytes bounds a failure reason, an interrupt's question
	// and each of its items' messages, and an incomplete turn's error
	// (8 KiB: envelope.SoftChunkLimit, the text a block keeps).
	MaxMessageBytes = envelope.SoftChunkLimit
	// MaxReplyBytes bounds the reply of a completed turn (1 MiB). A reply
	// is the answer, not a message about it: it is cut far later than a
	// reason, and says so.
	MaxReplyBytes = 1 << 20
)

// Cut returns s when it is at most limit bytes; otherwise its head, cut on
// a rune boundary to at most limit bytes, followed by a marker that gives
// the byte counts: "… [cut: 9437184 bytes in all, 1024 shown]". Package
// terminal's result uses it for every peer string it holds; the a2a-tail
// command cuts the peer's messages the same way (the one implementation is
// internal/textcut's, which packages below terminal can import).
//
// The result is a new string: it does not keep the whole of s in memory.
func Cut(s string, limit int) string { return textcut.Cut(s, limit) }

// partsText joins the text parts of an artifact with "\n", as
// envelope.MessageText does a message's.
func partsText(parts []*a2a.Part) string {
	return envelope.MessageText(&a2a.Message{Parts: parts})
}
