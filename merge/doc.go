// Package merge merges a turn's progress envelopes, idempotently by
// (streamKey, seq), into a live view and into ops for a front end.
package merge
