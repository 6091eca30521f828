// Package interop holds the interop test of the caller against an
// independent A2A implementation: a callee written with the A2A JS SDK
// (@a2a-js/sdk, pinned in jsagent/package.json) whose progress envelopes
// are written by hand in JavaScript, not by our envelope package.
//
// The test starts jsagent/server.mjs with node, reads its agent card, and
// for every interface the card lists (JSON-RPC and HTTP+JSON, A2A 1.0 and
// the SDK's v0.3 compatibility layer) sends each scripted scenario with
// [github.com/tfrs/a2a-progress/client], then compares the merged view and
// the outcome with values written out in the test. It also follows and
// polls each task once it has settled, which rebuilds the view from the
// JS SDK's Task.history.
//
// Differences of the JS SDK's wire that the test pins: its v0.3 HTTP+JSON
// layer drops Part.metadata (no envelope survives; every update degrades
// to its text), and its Task.history holds every status message on
// arrival, the terminal one included, once per messageId.
//
// Running it needs Node.js ≥ 20 and the SDK installed once:
//
//	npm ci --prefix internal/interop/jsagent
//
// Without node on PATH the test skips; with node but without the installed
// SDK it fails and says the command above. The package has no API: it is
// only its test.
package interop
