package terminal

import (
	"math"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
)

func TestArtifactAssembly(t *testing.T) {
	withMeta := func(ev *a2a.TaskArtifactUpdateEvent, name string, meta map[string]any) *a2a.TaskArtifactUpdateEvent {
		ev.Artifact.Name, ev.Artifact.Metadata = name, meta
		return ev
	}
	named := func(a *a2a.Artifact, name string, meta map[string]any) *a2a.Artifact {
		a.Name, a.Metadata = name, meta
		return a
	}
	tests := []struct {
		name          string
		limits        Limits
		events        []a2a.Event
		want          []*a2a.Artifact
		wantTruncated bool
		wantCounters  EventCounts
	}{
		{
			name:         "append chunks in order",
			events:       []a2a.Event{artifact("a", false, false, "1"), artifact("a", true, false, "2", "3"), artifact("a", true, true, "4")},
			want:         []*a2a.Artifact{art("a", "1", "2", "3", "4")},
			wantCounters: EventCounts{Events: 3},
		},
		{
			name:         "append=false replaces in place",
			events:       []a2a.Event{artifact("a", false, false, "old"), artifact("b", false, false, "b"), artifact("a", false, true, "new")},
			want:         []*a2a.Artifact{art("a", "new"), art("b", "b")},
			wantCounters: EventCounts{Events: 3},
		},
		{
			name: "order of first appearance, interleaved",
			events: []a2a.Event{artifact("z", false, false, "z1"), artifact("a", false, false, "a1"),
				artifact("z", true, false, "z2"), artifact("m", false, false, "m1"), artifact("a", true, true, "a2")},
			want:         []*a2a.Artifact{art("z", "z1", "z2"), art("a", "a1", "a2"), art("m", "m1")},
			wantCounters: EventCounts{Events: 5},
		},
		{
			name:         "append to an unknown id creates it",
			events:       []a2a.Event{artifact("a", true, false, "lost base?"), artifact("a", true, true, "more")},
			want:         []*a2a.Artifact{art("a", "lost base?", "more")},
			wantCounters: EventCounts{Events: 2, OrphanAppends: 1},
		},
		{
			name:         "append after lastChunk is kept and counted",
			events:       []a2a.Event{artifact("a", false, true, "done"), artifact("a", true, false, "and more")},
			want:         []*a2a.Artifact{art("a", "done", "and more")},
			wantCounters: EventCounts{Events: 2, AppendsAfterLastChunk: 1},
		},
		{
			name:         "replace reopens a closed artifact",
			events:       []a2a.Event{artifact("a", false, true, "v1"), artifact("a", false, false, "v2"), artifact("a", true, true, "+")},
			want:         []*a2a.Artifact{art("a", "v2", "+")},
			wantCounters: EventCounts{Events: 3},
		},
		{
			name: "append merges metadata and keeps the name; replace takes all",
			events: []a2a.Event{withMeta(artifact("a", false, false, "1"), "report", map[string]any{"k": "v1", "x": "kept"}),
				withMeta(artifact("a", true, false, "2"), "ignored", map[string]any{"k": "v2"}),
				withMeta(artifact("b", false, false, "1"), "first", map[string]any{"x": "y"}),
				withMeta(artifact("b", false, false, "2"), "second", nil)},
			want: []*a2a.Artifact{named(art("a", "1", "2"), "report", map[string]any{"k": "v2", "x": "kept"}),
				named(art("b", "2"), "second", nil)},
			wantCounters: EventCounts{Events: 4},
		},
		{
			name: "snapshot replaces what was assembled",
			events: []a2a.Event{artifact("a", false, false, "streamed"), artifact("b", false, false, "gone"),
				snapshot(a2a.TaskStateWorking, nil, art("c", "c"), art("a", "whole a")), artifact("a", true, false, "+tail")},
			want:         []*a2a.Artifact{art("c", "c"), art("a", "whole a", "+tail")},
			wantCounters: EventCounts{Events: 4},
		},
		{
			name:         "snapshot without artifacts clears them",
			events:       []a2a.Event{artifact("a", false, false, "x"), snapshot(a2a.TaskStateWorking, nil)},
			want:         nil,
			wantCounters: EventCounts{Events: 2},
		},
		{
			name:         "nil parts and nil snapshot artifacts are skipped",
			events:       []a2a.Event{snapshot(a2a.TaskStateWorking, nil, nil, &a2a.Artifact{ID: "a", Parts: a2a.ContentParts{nil, a2a.NewTextPart("x")}})},
			want:         []*a2a.Artifact{art("a", "x")},
			wantCounters: EventCounts{Events: 1},
		},
		{
			name:   "artifact cap drops new ids, keeps appends to known ones",
			limits: Limits{MaxArtifacts: 2},
			events: []a2a.Event{artifact("a", false, false, "a"), artifact("b", false, false, "b"), artifact("c", false, false, "c"),
				artifact("c", true, false, "c2")},
			want:          []*a2a.Artifact{art("a", "a"), art("b", "b")},
			wantTruncated: true,
			wantCounters:  EventCounts{Events: 4, ArtifactsDropped: 2, OrphanAppends: 1},
		},
		{
			name:   "part cap: once full, nothing more is kept",
			limits: Limits{MaxParts: 3},
			events: []a2a.Event{artifact("a", false, false, "1", "2"), artifact("a", true, false, "3", "4", "5"),
				artifact("b", false, false, "6")},
			want:          []*a2a.Artifact{art("a", "1", "2", "3"), art("b")},
			wantTruncated: true,
			wantCounters:  EventCounts{Events: 3, PartsDropped: 3},
		},
		{
			name:   "byte cap counts text bytes (and the artifact id)",
			limits: Limits{MaxBytes: 11},
			events: []a2a.Event{artifact("a", false, false, "12345"), artifact("a", true, false, "67890"),
				artifact("a", true, false, "x")},
			want:          []*a2a.Artifact{art("a", "12345", "67890")},
			wantTruncated: true,
			wantCounters:  EventCounts{Events: 3, PartsDropped: 1},
		},
		{
			name:   "byte cap counts data, raw and metadata",
			limits: Limits{MaxBytes: 40},
			events: []a2a.Event{&a2a.TaskArtifactUpdateEvent{TaskID: taskID, Artifact: &a2a.Artifact{ID: "d", Parts: a2a.ContentParts{
				a2a.NewDataPart(map[string]any{"key": "0123456789", "n": []any{1.0, true}}), // 2 + 3+10 + 1+2+8+8 = 34
				a2a.NewRawPart([]byte("raw")), // 37
				{Content: a2a.Text("t"), Metadata: map[string]any{"m": "12345678901234567890"}}, // +1 +2+1+20 = 61 > 40
			}}}},
			want: []*a2a.Artifact{{ID: "d", Parts: a2a.ContentParts{
				a2a.NewDataPart(map[string]any{"key": "0123456789", "n": []any{1.0, true}}), a2a.NewRawPart([]byte("raw"))}}},
			wantTruncated: true,
			wantCounters:  EventCounts{Events: 1, PartsDropped: 1},
		},
		{
			name:   "byte cap counts the artifact's own fields",
			limits: Limits{MaxBytes: 20},
			events: []a2a.Event{
				withMeta(artifact("a", false, false, "1"), "name", map[string]any{"k": "v"}), // 1+4+1+1+2 + 1 = 10
				withMeta(artifact("b", false, false), strings.Repeat("n", 20), nil),          // 21 > 10 left: not created
				withMeta(artifact("a", true, false), "", map[string]any{"k": "vv"}),          // 11, fits
				withMeta(artifact("a", true, false), "", map[string]any{"k2": "123456789"}),  // 11+2+9 > 20: not merged
				withMeta(artifact("a", false, false, "2"), strings.Repeat("n", 30), nil),     // replacement too big: the old stays
			},
			want:          []*a2a.Artifact{named(art("a", "1"), "name", map[string]any{"k": "vv"})},
			wantTruncated: true,
			wantCounters:  EventCounts{Events: 5, ArtifactsDropped: 2, MetadataDropped: 1},
		},
		{
			name:         "a snapshot resets a full budget",
			limits:       Limits{MaxParts: 1},
			events:       []a2a.Event{artifact("a", false, false, "1", "2"), snapshot(a2a.TaskStateWorking, nil, art("a", "whole"))},
			want:         []*a2a.Artifact{art("a", "whole")},
			wantCounters: EventCounts{Events: 2, PartsDropped: 1},
		},
		{
			name:         "replacing frees the budget of the old parts",
			limits:       Limits{MaxParts: 2},
			events:       []a2a.Event{artifact("a", false, false, "1", "2"), artifact("a", false, false, "3"), artifact("a", true, false, "4")},
			want:         []*a2a.Artifact{art("a", "3", "4")},
			wantCounters: EventCounts{Events: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(WithLimits(tt.limits))
			observeAll(tr, tt.events...)
			if diff := cmp.Diff(tt.want, tr.assembled()); diff != "" {
				t.Errorf("Artifacts (-want +got):\n%s", diff)
			}
			tr.Observe(status(a2a.TaskStateCompleted, nil))
			out, _ := tr.Outcome()
			if diff := cmp.Diff(tt.want, out.Artifacts); diff != "" {
				t.Errorf("Outcome.Artifacts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTruncated, out.Truncated); diff != "" {
				t.Errorf("Outcome.Truncated (-want +got):\n%s", diff)
			}
			tt.wantCounters.Events++ // the completed status
			if diff := cmp.Diff(tt.wantCounters, tr.EventCounts()); diff != "" {
				t.Errorf("EventCounts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestArtifactsDoNotAlias: assembling never modifies the caller's events,
// and an Outcome already returned does not change with later events.
func TestArtifactsDoNotAlias(t *testing.T) {
	first := artifact("a", false, false, "1")
	first.Artifact.Metadata = map[string]any{"k": "v"}
	firstParts := len(first.Artifact.Parts)
	tr := NewTracker()
	tr.Observe(first)
	tr.Observe(statusText(a2a.TaskStateInputRequired, "?"))
	early, _ := tr.Outcome()
	second := artifact("a", true, false, "2")
	second.Artifact.Metadata = map[string]any{"k": "changed"}
	tr.Observe(statusText(a2a.TaskStateWorking, "resumed"))
	tr.Observe(second)

	if diff := cmp.Diff(firstParts, len(first.Artifact.Parts)); diff != "" {
		t.Errorf("the first event's parts changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"k": "v"}, first.Artifact.Metadata); diff != "" {
		t.Errorf("the first event's metadata changed (-want +got):\n%s", diff)
	}
	want := []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("1")}, Metadata: map[string]any{"k": "v"}}}
	if diff := cmp.Diff(want, early.Artifacts); diff != "" {
		t.Errorf("an earlier Outcome changed (-want +got):\n%s", diff)
	}
	early.Artifacts[0].Parts = append(early.Artifacts[0].Parts, a2a.NewTextPart("caller's"))
	early.Artifacts[0].Metadata["k"] = "caller's"
	wantNow := []*a2a.Artifact{{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart("1"), a2a.NewTextPart("2")},
		Metadata: map[string]any{"k": "changed"}}}
	if diff := cmp.Diff(wantNow, tr.assembled()); diff != "" {
		t.Errorf("the tracker's artifacts (-want +got):\n%s", diff)
	}
}

func TestLimitsDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   Limits
		want Limits
	}{
		{"zero", Limits{}, Limits{defaultMaxArtifacts, defaultMaxParts, defaultMaxBytes, nil}},
		{"negative", Limits{-1, -1, -1, nil}, Limits{defaultMaxArtifacts, defaultMaxParts, defaultMaxBytes, nil}},
		{"set", Limits{1, 2, 3, nil}, Limits{1, 2, 3, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.in.withDefaults()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestValueSizeIsBounded: a deeply nested value costs bounded work and
// never panics.
// TestValueSizeCountsDeepValues: the estimate walks a value however deep
// it is nested (a peer must not hide megabytes below a depth bound), yet
// stays bounded work: it stops once over its limit, even for a value that
// holds itself.
func TestValueSizeCountsDeepValues(t *testing.T) {
	leaf := strings.Repeat("x", 1<<20)
	var v any = leaf
	for range 10000 {
		v = []any{map[string]any{"k": v}}
	}
	if got := valueSize(v, math.MaxInt); got < len(leaf) {
		t.Errorf("valueSize of a 1 MiB string 20000 levels deep = %d, want >= %d", got, len(leaf))
	}
	if got, want := valueSize(strings.Repeat("x", 100), math.MaxInt), 100; got != want {
		t.Errorf("valueSize(100-byte string) = %d, want %d", got, want)
	}
	cyclic := map[string]any{"k": "v"}
	cyclic["self"] = cyclic
	if got := valueSize(cyclic, 1000); got <= 1000 {
		t.Errorf("valueSize of a map holding itself = %d, want it to stop just over the limit 1000", got)
	}
}

// TestByteCapSeesDeepData: data nested past any depth still counts against
// Limits.MaxBytes, so the part is dropped and the outcome truncated.
func TestByteCapSeesDeepData(t *testing.T) {
	var v any = strings.Repeat("x", 1<<20)
	for range 40 {
		v = map[string]any{"k": v}
	}
	tr := NewTracker(WithLimits(Limits{MaxBytes: 64 << 10}))
	tr.Observe(&a2a.TaskArtifactUpdateEvent{TaskID: taskID, Artifact: &a2a.Artifact{ID: "a",
		Parts: a2a.ContentParts{a2a.NewDataPart(v), {Content: a2a.Text("t"), Metadata: map[string]any{"m": v}}}}})
	tr.Observe(status(a2a.TaskStateCompleted, nil))
	out, _ := tr.Outcome()
	if !out.Truncated || len(out.Artifacts) != 1 || len(out.Artifacts[0].Parts) != 0 {
		t.Errorf("Outcome: Truncated=%v, artifacts %+v; want truncated, one artifact without parts", out.Truncated, out.Artifacts)
	}
	if got := tr.EventCounts().PartsDropped; got != 2 {
		t.Errorf("PartsDropped = %d, want 2", got)
	}
}
