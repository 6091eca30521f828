// Package web holds the reference web view of the relay — index.html,
// app.js, style.css — and receiver.js, the browser side of the op stream, as
// an embedded file system: no CDN, no build step. Serve [FS] at the root of
// the same origin as the relay's /tasks/{taskId}/events (what `a2a-tail web`
// does); the page watches /?task=<id> or sends a message with POST /tasks.
package web

import "embed"

// FS holds the page and its modules: index.html, app.js, style.css,
// receiver.js. Serve it with http.FileServerFS.
//
//go:embed index.html app.js style.css receiver.js nest.js
var FS embed.FS
