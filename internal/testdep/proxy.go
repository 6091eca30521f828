package testdep

import (
	"net/http"
	"net/http/httputil"
)

// Proxy serves rp the way the module's tests put a reverse proxy between
// a client and a server: responses flush as they come (FlushInterval −1
// where rp leaves it 0) and the request body stays readable while the
// response is written (full duplex).
//
// Without full duplex, net/http's HTTP/1.1 server closes a request body
// the handler has not read to its end when the handler writes its
// response headers. A ReverseProxy copies the body to the upstream in
// another goroutine, which after the last byte reads once more to see
// EOF; an upstream that answers as soon as it has the body can win that
// race, the second read then fails, the Transport closes the upstream
// connection for a "write error", and the response the browser or client
// was reading ends without its last chunk ("network error", Chromium's
// ERR_INCOMPLETE_CHUNKED_ENCODING). TestProxyKeepsEveryResponse lost 23
// and 34 of 2 000 POSTs so, and none with full duplex; the React browser
// suites failed a run in two or three for it.
// rp itself is left as it is: Proxy serves a copy.
func Proxy(rp *httputil.ReverseProxy) http.Handler {
	cp := *rp
	if cp.FlushInterval == 0 {
		cp.FlushInterval = -1
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only HTTP/1.x writers support it; HTTP/2 is full duplex anyway.
		_ = http.NewResponseController(w).EnableFullDuplex()
		cp.ServeHTTP(w, r)
	})
}
