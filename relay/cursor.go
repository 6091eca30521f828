package relay

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
)

// A cursor names a position in one task's op log of one relay instance:
// "<epoch>.<gen>.<n>". The epoch is random per Handler, so a cursor minted
// by another process (another replica, or this one before a restart) never
// matches; gen numbers the log, so a cursor into a log that was evicted and
// started again never matches either; n counts the ops of the log up to and
// including the event that carried the cursor. A cursor that does not match
// is never an error: the subscriber gets a snapshot instead.
type cursor struct {
	epoch string
	gen   uint64
	n     uint64
}

// maxCursorBytes bounds what parseCursor looks at: a longer header is
// malformed whatever it holds.
const maxCursorBytes = 96

func newEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

func (c cursor) String() string {
	return c.epoch + "." + strconv.FormatUint(c.gen, 10) + "." + strconv.FormatUint(c.n, 10)
}

// parseCursor reads s; ok is false for anything malformed.
func parseCursor(s string) (c cursor, ok bool) {
	if s == "" || len(s) > maxCursorBytes {
		return cursor{}, false
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 || len(parts[0]) != 16 {
		return cursor{}, false
	}
	if _, err := hex.DecodeString(parts[0]); err != nil {
		return cursor{}, false
	}
	gen, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return cursor{}, false
	}
	n, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return cursor{}, false
	}
	return cursor{epoch: parts[0], gen: gen, n: n}, true
}
