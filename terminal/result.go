package terminal

import (
	"errors"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
)

// Result returns the outcome in the JSON form a front end gets as the
// turn's result op (merge.TurnResult; PROTOCOL.md §4.3): the verdict in one
// word, decided by State alone, and what goes with it —
//
//   - completed: Reply (Text) and Artifacts (id, name, text parts joined
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
// produced some). Counters are left zero: they are the merge's, which
// merge.Turn.ResultOp fills in.
func (o Outcome) Result() merge.TurnResult {
	r := merge.TurnResult{State: string(o.State), Verdict: merge.VerdictOf(string(o.State)), Context: o.ContextID}
	if r.Verdict == merge.VerdictIncomplete {
		if o.Err != nil {
			r.Error = o.Err.Error()
		}
		return r
	}
	for _, a := range o.Artifacts {
		if a != nil {
			r.Artifacts = append(r.Artifacts, merge.Artifact{ID: string(a.ID), Name: a.Name, Text: partsText(a.Parts)})
		}
	}
	r.ArtifactsTruncated = o.Truncated
	switch r.Verdict {
	case merge.VerdictCompleted:
		r.Reply = o.Text
	case merge.VerdictFailed, merge.VerdictRejected, merge.VerdictCanceled:
		var ve *VerdictError
		if errors.As(o.Err, &ve) {
			r.Error = ve.Reason
		} else {
			r.Error = o.Text
		}
	case merge.VerdictInputRequired, merge.VerdictAuthRequired:
		in := &merge.Interrupt{Question: o.Text}
		if o.Interrupt != nil {
			if o.Interrupt.Question != "" {
				in.Question = o.Interrupt.Question
			}
			in.Items = slices.Clone(o.Interrupt.Items)
		}
		r.Interrupt = in
	}
	return r
}

// partsText joins the text parts of an artifact with "\n", as
// envelope.MessageText does a message's.
func partsText(parts []*a2a.Part) string {
	return envelope.MessageText(&a2a.Message{Parts: parts})
}
