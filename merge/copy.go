package merge

import (
	"maps"
	"slices"

	"github.com/tfrs/a2a-progress/schema"
)

// equalResults reports whether two results are the same.
func equalResults(r, o *schema.Result) bool {
	return r.State == o.State && r.Verdict == o.Verdict && r.Reply == o.Reply && r.ArtifactsTruncated == o.ArtifactsTruncated &&
		r.Error == o.Error && r.Context == o.Context && slices.Equal(r.Artifacts, o.Artifacts) &&
		equalInterrupts(r.Interrupt, o.Interrupt) && equalCounters(&r.Counters, &o.Counters)
}

func equalInterrupts(a, b *schema.Interrupt) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Question == b.Question && slices.Equal(a.Items, b.Items)
}

func equalCounters(a, b *schema.Counters) bool {
	return a.Applied == b.Applied && a.Duplicates == b.Duplicates && a.Conflicts == b.Conflicts &&
		a.Late == b.Late && a.Gaps == b.Gaps && a.DroppedAfterSeal == b.DroppedAfterSeal &&
		a.DroppedByCap == b.DroppedByCap && a.Invalid == b.Invalid && maps.Equal(a.Fallbacks, b.Fallbacks)
}

// cloneResult returns a deep copy of r.
func cloneResult(r *schema.Result) *schema.Result {
	c := *r
	c.Artifacts = slices.Clone(r.Artifacts)
	if r.Interrupt != nil {
		in := *r.Interrupt
		in.Items = slices.Clone(r.Interrupt.Items)
		c.Interrupt = &in
	}
	c.Counters = cloneCounters(r.Counters)
	return &c
}

func cloneCounters(c schema.Counters) schema.Counters {
	c.Fallbacks = maps.Clone(c.Fallbacks)
	return c
}
