package bench

import (
	"bytes"
	"io"
	"net/http"
	"sort"
	"time"
)

// Arrivals stamps the arrival of every SSE frame of one response: it wraps
// the body that the a2a-go transport reads, innermost, so a frame counts
// as arrived when the read that brought its closing blank line returned.
// Frame 0 is the first of the stream. It is not safe for concurrent use:
// a2a-go reads the body on the goroutine that iterates the stream, and
// Since must be called there too.
type Arrivals struct {
	base  time.Time
	at    []time.Duration // arrival of frame i, since base
	prevN bool            // the last byte read was '\n'
}

// NewArrivals returns stamps for one stream of about n frames.
func NewArrivals(n int) *Arrivals {
	return &Arrivals{base: time.Now(), at: make([]time.Duration, 0, n)}
}

// Client returns an HTTP client (no whole-request timeout) whose response
// bodies stamp a.
func (a *Arrivals) Client() *http.Client {
	return &http.Client{Transport: arrivalTransport{a: a, base: http.DefaultTransport}}
}

// Since returns how long ago frame i arrived, and false when it has not.
func (a *Arrivals) Since(i int) (time.Duration, bool) {
	if i < 0 || i >= len(a.at) {
		return 0, false
	}
	return time.Since(a.base) - a.at[i], true
}

// Frames is the number of frames that arrived.
func (a *Arrivals) Frames() int { return len(a.at) }

type arrivalTransport struct {
	a    *Arrivals
	base http.RoundTripper
}

func (t arrivalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = &stampedBody{ReadCloser: resp.Body, a: t.a}
	}
	return resp, err
}

type stampedBody struct {
	io.ReadCloser
	a *Arrivals
}

func (b *stampedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		a := b.a
		now := time.Since(a.base)
		data := p[:n]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				a.prevN = false
				break
			}
			if i == 0 && a.prevN {
				a.at = append(a.at, now)
				a.prevN = false
			} else {
				a.prevN = true
			}
			data = data[i+1:]
		}
	}
	return n, err
}

// Percentiles returns the p-quantiles (0 ≤ p ≤ 1) of ds, which it sorts.
func Percentiles(ds []time.Duration, ps ...float64) []time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	out := make([]time.Duration, len(ps))
	if len(ds) == 0 {
		return out
	}
	for k, p := range ps {
		i := int(p * float64(len(ds)-1))
		out[k] = ds[i]
	}
	return out
}
