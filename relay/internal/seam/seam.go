// Package seam is what package relay/frontend uses of package relay beyond
// relay's public API: a Handler's subscription served with the front end's
// own encoder (its state charged to the task's byte budget), the Handler's
// access check, CORS, lifetime and Store, and the JSON error answer both
// write. It lives under internal/ so that none of it is relay's API: relay
// fills it in from an init function, relay/frontend reads it.
package seam

import (
	"encoding/json"
	"net/http"

	"github.com/tfrs/a2a-progress/merge"
)

// HostOf returns h, a *relay.Handler, as a value whose methods
// relay/frontend names in an interface of its own (they take relay's
// types, which this package cannot import). Set by relay.
var HostOf func(h any) any

// NewEventWriter returns a *relay.EventWriter writing to w. Set by relay.
var NewEventWriter func(w http.ResponseWriter) any

// Budgeted is an encoder that keeps a merged view of its own (the AG-UI and
// AI SDK encoders): a relay that serves it reserves StateBytes of the
// task's byte budget for the encoder's state and hands it, with SetBudget,
// the budget its merged view charges.
type Budgeted interface {
	StateBytes() int64
	SetBudget(b *merge.Budget)
}

// WriteError answers with status and a JSON body {"error": msg}; a 503
// carries Retry-After.
func WriteError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "2")
	}
	w.WriteHeader(status)
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	_, _ = w.Write(append(b, '\n'))
}
