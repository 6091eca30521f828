package client

import (
	"errors"
	"hash/maphash"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// The reasons a turn's retries end without a verdict, in the cause of its
// [*IncompleteError] (errors.Is matches them through it).
var (
	// ErrNoProgress: the resubscriptions allowed in a row (WithRetry) all
	// ended without news — nothing the turn did not have already. A peer
	// that replays its turn on every subscription ends here.
	ErrNoProgress = errors.New("no progress")
	// ErrResubscribeLimit: the turn used up its resubscriptions
	// ([WithResubscribeLimit]), news or not.
	ErrResubscribeLimit = errors.New("resubscription limit reached")
)

// news decides what counts as progress for the retry budget: something
// the turn did not have. A peer that replays the turn on every
// resubscription — its snapshot flipping submitted→working again, its
// messages under fresh ids, its artifacts sent again — brings nothing
// new, so it cannot keep resetting the count of attempts without news.
//
//   - A state counts once per turn: reaching working a second time is a
//     replay, not progress.
//   - An envelope the merge applied is new by its identity (seq,
//     streamKey): a replay of it is a duplicate.
//   - An envelope a cap refused is new when its seq is above every seq of
//     its streamKey a cap refused before: a replay sends them again in
//     order. (A late block below that mark is not counted: the cap drops
//     it all the same.) One comparison per event, where a set of every
//     refused block — 90 % of a long turn's blocks under the default caps
//     — cost a tenth of the client's CPU per event (BENCHMARKS.md).
//   - A fallback (no envelope: its identity is a message id a peer may
//     mint afresh), a fallback a cap refused, and an output artifact count
//     by a hash of their content, once per turn.
//
// The content set is bounded (maxNewsKeys entries of 8 bytes plus the
// map's overhead, about 3 MiB at most), and so are the marks
// (maxNewsKeys stream keys): once full, nothing more counts as news of
// that sort, which errs on the side of ending the retries.
type news struct {
	seed   maphash.Seed
	states []a2a.TaskState
	seen   map[uint64]struct{}
	// capped: per stream key, the highest seq a cap refused; lastKey and
	// lastHigh cache the entry of the latest one (a turn has a few keys).
	capped   map[string]int64
	lastKey  string
	lastHigh int64
}

// maxNewsKeys caps the content hashes a turn keeps for news; maxNewsStates
// the distinct states (A2A has nine; a peer may invent more).
const (
	maxNewsKeys   = 1 << 16
	maxNewsStates = 16
)

// state reports whether st is a state the turn has not reached before.
func (n *news) state(st a2a.TaskState) bool {
	for _, s := range n.states {
		if s == st {
			return false
		}
	}
	if len(n.states) >= maxNewsStates {
		return false
	}
	n.states = append(n.states, st)
	return true
}

// reading reports whether a reading the merge took (ch) is news.
func (n *news) reading(r envelope.Reading, ch merge.Change) bool {
	switch {
	case ch.Effect == merge.Applied && !r.Fallback && ch.Op.Block.Source == schema.SourceEnvelope:
		return true
	case ch.Effect != merge.Applied && ch.Effect != merge.DroppedCap:
		return false
	case ch.Effect == merge.DroppedCap && !r.Fallback:
		return n.above(r.Envelope.StreamKey, r.Envelope.Seq)
	}
	return n.add(n.key(r))
}

// above reports whether seq is above the highest refused seq of key, and
// raises the mark. The latest key's mark lives in lastHigh, written back
// to the map when another key comes.
func (n *news) above(key string, seq int64) bool {
	if n.capped == nil || key != n.lastKey {
		if n.capped == nil {
			n.capped = make(map[string]int64)
		} else {
			n.capped[n.lastKey] = n.lastHigh
		}
		high, ok := n.capped[key]
		if !ok {
			if len(n.capped) >= maxNewsKeys {
				return false
			}
			high = math.MinInt64
		}
		n.lastKey, n.lastHigh = key, high
	}
	if seq <= n.lastHigh {
		return false
	}
	n.lastHigh = seq
	return true
}

// replayed reports whether r is a fallback whose content the turn has:
// after a resubscription, the peer's replay of a text it sent before
// under a fresh message id (see Stream.progress).
func (n *news) replayed(r envelope.Reading) bool {
	if !r.Fallback || n.seen == nil {
		return false
	}
	_, ok := n.seen[n.key(r)]
	return ok
}

// key is the content hash of a reading: a fallback by its reason and
// text, an envelope by its identity.
func (n *news) key(r envelope.Reading) uint64 {
	var h maphash.Hash
	n.init(&h)
	if r.Fallback {
		h.WriteByte('f')
		h.WriteString(string(r.Reason))
		h.WriteByte(0)
		if t, ok := r.Envelope.Payload.(envelope.Text); ok {
			h.WriteString(t.Text)
		}
	} else {
		h.WriteByte('e')
		h.WriteString(r.Envelope.StreamKey)
		h.WriteByte(0)
		var b [8]byte
		for i := range b {
			b[i] = byte(r.Envelope.Seq >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// artifact reports whether an output artifact update is news.
func (n *news) artifact(e *a2a.TaskArtifactUpdateEvent) bool {
	if e.Artifact == nil {
		return false
	}
	var h maphash.Hash
	n.init(&h)
	h.WriteByte('a')
	h.WriteString(string(e.Artifact.ID))
	h.WriteByte(0)
	if e.Append {
		h.WriteByte(1)
	}
	if e.LastChunk {
		h.WriteByte(2)
	}
	for _, p := range e.Artifact.Parts {
		if p == nil {
			continue
		}
		h.WriteByte(0)
		h.WriteString(p.Text())
	}
	return n.add(h.Sum64())
}

func (n *news) init(h *maphash.Hash) {
	if n.seen == nil {
		n.seed = maphash.MakeSeed()
		n.seen = make(map[uint64]struct{})
	}
	h.SetSeed(n.seed)
}

func (n *news) add(k uint64) bool {
	if _, ok := n.seen[k]; ok || len(n.seen) >= maxNewsKeys {
		return false
	}
	n.seen[k] = struct{}{}
	return true
}

// resubscribes bounds the resubscriptions of one turn, whatever the peer
// does: at most max in all, and at most perMinute within any minute (a
// resubscription past that waits for the oldest of the window to age
// out). times holds the start of the last perMinute ones: a ring.
type resubscribes struct {
	total int
	times []time.Time
	next  int
}

// wait returns how long the next resubscription must wait to stay within
// perMinute per minute (0: none), and false when max is spent.
func (r *resubscribes) wait(now time.Time, max, perMinute int) (time.Duration, bool) {
	if r.total >= max {
		return 0, false
	}
	if perMinute <= 0 || len(r.times) < perMinute {
		return 0, true
	}
	oldest := r.times[r.next]
	return max0(oldest.Add(time.Minute).Sub(now)), true
}

// record notes a resubscription started at now.
func (r *resubscribes) record(now time.Time, perMinute int) {
	r.total++
	if perMinute <= 0 {
		return
	}
	if len(r.times) < perMinute {
		r.times = append(r.times, now)
		return
	}
	r.times[r.next] = now
	r.next = (r.next + 1) % perMinute
}

func max0(d time.Duration) time.Duration { return max(d, 0) }

// logText is an error's message as the client logs it: a peer's words
// may be any size, so it is cut at terminal.MaxMessageBytes, saying so.
func logText(err error) string { return terminal.Cut(err.Error(), terminal.MaxMessageBytes) }
