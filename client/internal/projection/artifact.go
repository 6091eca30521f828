package projection

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
)

// FromArtifact classifies one artifact update. It reports true when the
// update is a projection — it carries [MetadataKey] (see the package doc
// for where) — and returns its Reading: the mapped projection, or for a
// malformed value a text fallback that says why. It reports false, with a
// zero Reading, for every other artifact. It never modifies ev and never
// panics; its signature is that of client.WithArtifactProgress.
func FromArtifact(ev *a2a.TaskArtifactUpdateEvent) (envelope.Reading, bool) {
	if ev == nil || ev.Artifact == nil {
		return envelope.Reading{}, false
	}
	raw, part, ok := find(ev.Artifact)
	if !ok {
		return envelope.Reading{}, false
	}
	f, err := Parse(raw)
	if err != nil {
		return diagnostic(ev.Artifact, err), true
	}
	return f.Reading(part), true
}

// find returns the first projection value of an artifact and the index of
// its part (-1 for the artifact's metadata).
func find(a *a2a.Artifact) (any, int, bool) {
	if v, ok := a.Metadata[MetadataKey]; ok {
		return v, -1, true
	}
	for i, p := range a.Parts {
		if p == nil {
			continue
		}
		if v, ok := p.Metadata[MetadataKey]; ok {
			return v, i, true
		}
		if d, ok := p.Content.(a2a.Data); ok {
			if obj, ok := d.Value.(map[string]any); ok {
				if v, ok := obj[MetadataKey]; ok {
					return v, i, true
				}
			}
		}
	}
	return nil, 0, false
}

// diagnostic is the fallback Reading of a malformed projection: the text
// of the artifact's parts, joined as a message's are.
func diagnostic(a *a2a.Artifact, err error) envelope.Reading {
	text := envelope.MessageText(&a2a.Message{Parts: a.Parts})
	id := "artifact:" + string(a.ID)
	if a.ID == "" {
		sum := sha256.Sum256([]byte(text))
		id = "sha256:" + hex.EncodeToString(sum[:])
	}
	return envelope.Reading{
		Envelope: envelope.Envelope{V: envelope.Version, Kind: envelope.KindText, Status: envelope.StatusRunning,
			Payload: envelope.Text{Text: text}},
		Fallback: true,
		Reason:   envelope.ReasonOf(err),
		Err:      err,
		Part:     -1,
		ID:       id,
	}
}
