package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ReadJSON decodes the body of r into v, for every endpoint of the module
// that takes one (relay/frontend's, a2a-tail web's POST /tasks). It
// accepts only:
//
//   - Content-Type application/json (parameters other than charset=utf-8
//     refused): a cross-origin page cannot send it without a CORS preflight,
//     which the relay allows only for the origins given to [WithCORS] —
//     otherwise 415;
//   - a body of at most maxBytes (read through [http.MaxBytesReader], which
//     also closes the connection past it) — otherwise 413;
//   - valid UTF-8 (encoding/json would turn invalid bytes into U+FFFD
//     silently) holding one JSON value and nothing after it but white
//     space — otherwise 400.
//
// On failure it returns the status to respond with and an error whose text
// says why; it writes nothing to w.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any, maxBytes int64) (status int, err error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if cs, ok := params["charset"]; err != nil || mt != "application/json" || len(params) > 1 ||
		(len(params) == 1 && (!ok || !strings.EqualFold(cs, "utf-8"))) {
		return http.StatusUnsupportedMediaType, errors.New("relay: the request must be application/json (UTF-8)")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return http.StatusRequestEntityTooLarge, fmt.Errorf("relay: request body over %d bytes", maxBytes)
		}
		return http.StatusBadRequest, fmt.Errorf("relay: reading the request: %w", err)
	}
	if !utf8.Valid(body) {
		return http.StatusBadRequest, errors.New("relay: the request body is not valid UTF-8")
	}
	// json.Unmarshal refuses anything but white space after the value.
	if err := json.Unmarshal(body, v); err != nil {
		return http.StatusBadRequest, fmt.Errorf("relay: the request is not the JSON expected: %w", err)
	}
	return http.StatusOK, nil
}
