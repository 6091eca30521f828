package client

import (
	"errors"
	"fmt"
)

// historyBound is the history GetTask asks for after a response was refused
// as too large: each refusal divides the length by historyShrink (from
// firstShrink when the whole history was asked for) down to none; a
// refusal without history stops asking, since the same response would only
// be read and refused again. So retries never read more than one
// oversize response at the configured length, and at most a handful in all.
type historyBound struct {
	n     *int  // nil: the configured length
	asked *int  // the length of the call in flight
	stop  error // set: GetTask is not asked again
}

// errHistoryStop marks the error of a GetTask over the bound without
// history: nothing smaller can be asked.
var errHistoryStop = errors.New("even without history: not asked again")

const (
	firstShrink   = 32
	historyShrink = 8
)

// next returns the history length of the next GetTask, or the error that
// stopped asking.
func (h *historyBound) next(configured *int) (*int, error) {
	if h.stop != nil {
		return nil, h.stop
	}
	h.asked = configured
	if h.n != nil {
		h.asked = h.n
	}
	return h.asked, nil
}

// observe takes the error of a GetTask and shrinks the next one's history
// when the response was too large.
func (h *historyBound) observe(err error) error {
	if !errors.Is(err, ErrResponseTooLarge) {
		return err
	}
	var n int
	switch {
	case h.asked == nil:
		n = firstShrink
	case *h.asked > 0:
		n = *h.asked / historyShrink
		if n >= *h.asked {
			n = *h.asked - 1
		}
	default:
		h.stop = fmt.Errorf("%w (%w)", err, errHistoryStop)
		return h.stop
	}
	h.n = &n
	return fmt.Errorf("%w (the next GetTask asks for the last %d messages of history)", err, n)
}
