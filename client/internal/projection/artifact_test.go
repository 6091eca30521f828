package projection

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/tfrs/a2a-progress/envelope"
)

func artifactEv(a *a2a.Artifact) *a2a.TaskArtifactUpdateEvent {
	return &a2a.TaskArtifactUpdateEvent{TaskID: "t1", ContextID: "c1", Artifact: a}
}

func textPart(text string, meta map[string]any) *a2a.Part {
	p := a2a.NewTextPart(text)
	p.Metadata = meta
	return p
}

func TestFromArtifact(t *testing.T) {
	running := Frame{BatchID: "d1625ae4-...", ToolCallID: "call_00_32BxucUtBW0bBQZE9mz32638", Sequence: 1,
		Target: "expense-review", Phase: PhaseRunning}
	type result struct {
		Progress bool
		Fallback bool
		Reason   envelope.Reason
		ID       string
		Part     int
		Text     string
	}
	summary := func(r envelope.Reading, ok bool) result {
		res := result{Progress: ok, Fallback: r.Fallback, Reason: r.Reason, ID: r.ID, Part: r.Part}
		if p, isText := r.Envelope.Payload.(envelope.Text); isText {
			res.Text = p.Text
		}
		return res
	}
	tests := []struct {
		name string
		ev   *a2a.TaskArtifactUpdateEvent
		want result
	}{
		{
			name: "the seed's frame: a text part with _remote_invocation",
			ev: artifactEv(&a2a.Artifact{ID: "620157e7-...", Parts: a2a.ContentParts{
				textPart("RUNNING", map[string]any{MetadataKey: seedRunning()})}}),
			want: result{Progress: true, ID: running.ID(), Part: 0},
		},
		{
			name: "on a data part, after another part",
			ev: artifactEv(&a2a.Artifact{ID: "a2", Parts: a2a.ContentParts{a2a.NewTextPart("x"),
				{Content: a2a.Data{Value: map[string]any{"any": "thing"}}, Metadata: map[string]any{MetadataKey: seedRunning()}}}}),
			want: result{Progress: true, ID: running.ID(), Part: 1},
		},
		{
			name: "inside a data part's object",
			ev: artifactEv(&a2a.Artifact{ID: "a3", Parts: a2a.ContentParts{
				a2a.NewDataPart(map[string]any{MetadataKey: seedRunning(), "content": "RUNNING"})}}),
			want: result{Progress: true, ID: running.ID(), Part: 0},
		},
		{
			name: "in the artifact's metadata",
			ev: artifactEv(&a2a.Artifact{ID: "a4", Metadata: map[string]any{MetadataKey: seedRunning()},
				Parts: a2a.ContentParts{a2a.NewTextPart("RUNNING")}}),
			want: result{Progress: true, ID: running.ID(), Part: -1},
		},
		{
			name: "an ordinary artifact with other metadata is untouched",
			ev: artifactEv(&a2a.Artifact{ID: "out", Metadata: map[string]any{"remote_invocation": seedRunning()},
				Parts: a2a.ContentParts{textPart("RUNNING", map[string]any{"tfrs": "x", "_interrupt": map[string]any{}})}}),
			want: result{},
		},
		{
			name: "a malformed value is a diagnostic, not output",
			ev: artifactEv(&a2a.Artifact{ID: "bad", Parts: a2a.ContentParts{
				textPart("RUNNING", map[string]any{MetadataKey: with("sequence", "one")})}}),
			want: result{Progress: true, Fallback: true, Reason: envelope.ReasonBadField, ID: "artifact:bad", Part: -1, Text: "RUNNING"},
		},
		{
			name: "another kind is a diagnostic too",
			ev: artifactEv(&a2a.Artifact{Parts: a2a.ContentParts{
				textPart("RUNNING", map[string]any{MetadataKey: with("kind", "v2")})}}),
			want: result{Progress: true, Fallback: true, Reason: envelope.ReasonUnknownKind,
				ID: "sha256:" + digest("RUNNING"), Part: -1, Text: "RUNNING"},
		},
		{
			name: "a null under the key is a diagnostic",
			ev: artifactEv(&a2a.Artifact{ID: "n", Parts: a2a.ContentParts{nil,
				textPart("", map[string]any{MetadataKey: nil})}}),
			want: result{Progress: true, Fallback: true, Reason: envelope.ReasonBadJSON, ID: "artifact:n", Part: -1},
		},
		{
			name: "a diagnostic's text joins the text parts, empty ones kept in place",
			ev: artifactEv(&a2a.Artifact{ID: "joined", Parts: a2a.ContentParts{
				textPart("RUNNING", map[string]any{MetadataKey: with("sequence", "one")}), nil,
				a2a.NewDataPart(map[string]any{"x": 1.0}), a2a.NewTextPart(""), a2a.NewTextPart("again")}}),
			want: result{Progress: true, Fallback: true, Reason: envelope.ReasonBadField, ID: "artifact:joined", Part: -1,
				Text: "RUNNING\n\nagain"},
		},
		{name: "no artifact", ev: &a2a.TaskArtifactUpdateEvent{}, want: result{}},
		{name: "no event", ev: nil, want: result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := FromArtifact(tt.ev)
			got := summary(r, ok)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if r.Fallback && envelope.ReasonOf(r.Err) != r.Reason {
				t.Errorf("fallback err %v does not match its reason %s", r.Err, r.Reason)
			}
		})
	}
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
