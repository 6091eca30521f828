package terminal

import (
	"maps"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/merge"
)

// Limits bound the memory a [Tracker] spends on assembled artifacts, so
// that a hostile or broken peer cannot grow it without end. When a limit
// is reached the artifacts are marked truncated ([Outcome.Truncated]),
// what does not fit is dropped and counted ([EventCounts.ArtifactsDropped],
// [EventCounts.PartsDropped]), and — so that no artifact silently loses a part
// in its middle — no further part is kept until a Task snapshot replaces
// the artifacts. A field ≤ 0 means its default.
type Limits struct {
	// MaxArtifacts is the number of distinct artifact ids kept.
	// Default 1024.
	MaxArtifacts int
	// MaxParts is the number of parts kept across all artifacts.
	// Default 65536.
	MaxParts int
	// MaxBytes is the size kept across all artifacts: of their parts
	// (text, raw bytes, URL, filename, media type, an estimate of data and
	// metadata values) and of their own id, name, description, extensions
	// and metadata. Default 64 MiB.
	MaxBytes int
	// Budget, when set, is charged the same bytes as MaxBytes counts: a
	// turn's one byte budget, shared with its merge (merge.Caps.Budget),
	// so that artifacts and progress together stay under it. What does
	// not fit is dropped and counted like what is over MaxBytes.
	Budget *merge.Budget
}

// The default limits.
const (
	defaultMaxArtifacts = 1024
	defaultMaxParts     = 1 << 16
	defaultMaxBytes     = 64 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxArtifacts <= 0 {
		l.MaxArtifacts = defaultMaxArtifacts
	}
	if l.MaxParts <= 0 {
		l.MaxParts = defaultMaxParts
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = defaultMaxBytes
	}
	return l
}

// artifactSet assembles artifacts from updates, in order of first
// appearance. It owns its *a2a.Artifact values (copies of what the events
// carried) so that appending never modifies a caller's event.
type artifactSet struct {
	limits Limits
	list   []*slot
	index  map[a2a.ArtifactID]int
	parts  int
	bytes  int
	full   bool // a limit was hit; sticky until reset
}

type slot struct {
	a      *a2a.Artifact
	parts  int
	bytes  int
	closed bool // lastChunk seen
}

// applyResult says what apply did, for the counters.
type applyResult struct {
	droppedArtifact    bool
	droppedMetadata    bool
	droppedParts       int
	orphanAppend       bool
	appendAfterClosing bool
}

func (s *artifactSet) reset() {
	s.limits.Budget.Release(int64(s.bytes))
	s.list, s.index, s.parts, s.bytes, s.full = nil, nil, 0, 0, false
}

// charge takes delta bytes (given back when negative) from the budget, if
// any, and reports whether they fitted.
func (s *artifactSet) charge(delta int) bool {
	if delta < 0 {
		s.limits.Budget.Release(int64(-delta))
		return true
	}
	return s.limits.Budget.Reserve(int64(delta))
}

// apply folds one artifact update in, as a2a-go's own task store does:
// append=false creates the artifact or replaces the one with the same id
// (keeping its position); append=true appends the parts to it and merges
// its metadata. An append for an unknown id creates the artifact (a2a-go's
// server would refuse it; a caller keeps the data) and is reported.
//
// The artifact's own fields (id, name, description, extensions, metadata)
// count against MaxBytes like its parts: an artifact whose fields do not
// fit is not created (or, for a replacement, the old one stays), and a
// metadata merge that does not fit is dropped.
func (s *artifactSet) apply(ev *a2a.TaskArtifactUpdateEvent) applyResult {
	var r applyResult
	in := ev.Artifact
	i, known := s.index[in.ID]
	if !known || !ev.Append {
		return s.put(ev, i, known)
	}
	sl := s.list[i]
	r.appendAfterClosing = sl.closed
	if len(in.Metadata) > 0 {
		// The growth of the merged map: new keys and changed values count,
		// overwritten ones give their old size back.
		delta := 0
		for k, v := range in.Metadata {
			if old, ok := sl.a.Metadata[k]; ok {
				delta -= len(k) + valueSize(old, s.limits.MaxBytes)
			}
			delta += len(k) + valueSize(v, s.limits.MaxBytes-s.bytes-delta)
			if s.bytes+delta > s.limits.MaxBytes {
				break
			}
		}
		if s.bytes+delta > s.limits.MaxBytes || !s.charge(delta) {
			s.full = true
			r.droppedMetadata = true
		} else {
			if sl.a.Metadata == nil {
				sl.a.Metadata = make(map[string]any, len(in.Metadata))
			}
			maps.Copy(sl.a.Metadata, in.Metadata)
			sl.bytes += delta
			s.bytes += delta
		}
	}
	r.droppedParts = s.add(sl, in.Parts)
	sl.closed = sl.closed || ev.LastChunk
	return r
}

// put creates the artifact of ev or, when known, replaces the one at
// list[i] in its place: one rule for both, with the replaced artifact's
// parts and bytes given back.
func (s *artifactSet) put(ev *a2a.TaskArtifactUpdateEvent, i int, known bool) applyResult {
	var r applyResult
	in := ev.Artifact
	var old slot
	if known {
		old = *s.list[i]
	} else {
		r.orphanAppend = ev.Append
		if len(s.list) >= s.limits.MaxArtifacts {
			s.full = true
			r.droppedArtifact = true
			return r
		}
	}
	room := s.limits.MaxBytes - (s.bytes - old.bytes)
	h := headerSize(in, room)
	if h > room || !s.charge(h-old.bytes) {
		s.full = true
		r.droppedArtifact = true
		return r
	}
	s.parts -= old.parts
	s.bytes += h - old.bytes
	sl := newSlot(in, h)
	if known {
		s.list[i] = sl
	} else {
		if s.index == nil {
			s.index = make(map[a2a.ArtifactID]int)
		}
		s.index[in.ID] = len(s.list)
		s.list = append(s.list, sl)
	}
	r.droppedParts = s.add(sl, in.Parts)
	sl.closed = ev.LastChunk
	return r
}

// newSlot holds a copy of in's own fields, of size h, and no parts yet.
func newSlot(in *a2a.Artifact, h int) *slot {
	return &slot{bytes: h, a: &a2a.Artifact{
		ID: in.ID, Name: in.Name, Description: in.Description,
		Extensions: slices.Clone(in.Extensions), Metadata: maps.Clone(in.Metadata),
	}}
}

// headerSize estimates the bytes of an artifact's own fields (not its
// parts); like valueSize it stops once over limit.
func headerSize(a *a2a.Artifact, limit int) int {
	n := len(a.ID) + len(a.Name) + len(a.Description)
	for _, e := range a.Extensions {
		n += len(e)
	}
	if n <= limit {
		n += valueSize(a.Metadata, limit-n)
	}
	return n
}

// add appends parts to sl within the limits and returns how many it dropped.
func (s *artifactSet) add(sl *slot, parts []*a2a.Part) (dropped int) {
	for _, p := range parts {
		if p == nil {
			continue
		}
		if s.full || s.parts+1 > s.limits.MaxParts {
			s.full = true
			dropped++
			continue
		}
		n := partSize(p, s.limits.MaxBytes-s.bytes)
		if s.bytes+n > s.limits.MaxBytes || !s.charge(n) {
			s.full = true
			dropped++
			continue
		}
		sl.a.Parts = append(sl.a.Parts, p)
		sl.parts++
		sl.bytes += n
		s.parts++
		s.bytes += n
	}
	return dropped
}

// snapshot returns copies of the artifacts: a new slice of new Artifact
// structs with their own Parts slices and Metadata maps, so that later
// updates do not change what a caller holds. Parts are shared.
func (s *artifactSet) snapshot() []*a2a.Artifact {
	if len(s.list) == 0 {
		return nil
	}
	out := make([]*a2a.Artifact, len(s.list))
	for i, sl := range s.list {
		a := *sl.a
		a.Parts = slices.Clone(a.Parts)
		a.Metadata = maps.Clone(a.Metadata)
		a.Extensions = slices.Clone(a.Extensions)
		out[i] = &a
	}
	return out
}

// partSize estimates the bytes a part holds; once the estimate is over
// limit it stops and returns it (the part does not fit anyway).
func partSize(p *a2a.Part, limit int) int {
	n := len(p.Filename) + len(p.MediaType)
	switch c := p.Content.(type) {
	case a2a.Text:
		n += len(c)
	case a2a.Raw:
		n += len(c)
	case a2a.URL:
		n += len(c)
	case a2a.Data:
		n += valueSize(c.Value, limit-n)
	}
	if n <= limit {
		n += valueSize(p.Metadata, limit-n)
	}
	return n
}

// valueSize estimates the size of a JSON-like value: the bytes of its
// strings and keys, a word per other scalar, two bytes per non-empty
// container. It walks the whole value, however deep — a bound on depth
// would let a peer hide megabytes below it — with an explicit stack, so
// depth cannot exhaust the goroutine stack. It stops as soon as the
// estimate is over limit, which also ends the walk of a value that is not
// a tree (a map that holds itself, built in the same process).
func valueSize(v any, limit int) int {
	const word = 8
	n := 0
	stack := []any{v}
	for len(stack) > 0 && n <= limit {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := v.(type) {
		case nil:
		case string:
			n += len(x)
		case []byte:
			n += len(x)
		case map[string]any:
			if len(x) > 0 {
				n += 2
			}
			for k, e := range x {
				n += len(k)
				stack = append(stack, e)
			}
		case []any:
			if len(x) > 0 {
				n += 2
			}
			stack = append(stack, x...)
		case map[string]string: // a Go producer in the same process
			if len(x) > 0 {
				n += 2
			}
			for k, e := range x {
				n += len(k) + len(e)
			}
		case []string:
			if len(x) > 0 {
				n += 2
			}
			for _, e := range x {
				n += len(e)
			}
		case []map[string]any:
			if len(x) > 0 {
				n += 2
			}
			for _, e := range x {
				stack = append(stack, e)
			}
		default:
			n += word
		}
	}
	return n
}
