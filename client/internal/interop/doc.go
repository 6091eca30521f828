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
// Running it needs Node.js >= 20 and npm. The first test that needs the
// SDK runs `npm ci` from jsagent/package-lock.json into jsagent/node_modules
// (once per test process; concurrent runs each install into a temporary
// directory and the first rename into place wins), so a fresh clone needs
// nothing else. The tests skip, saying which, when node or npm is not on
// PATH or the npm registry cannot be reached; with the environment variable
// A2A_PROGRESS_REQUIRE_INTEROP set (CI sets it) those skips are failures.
// A node_modules that holds another SDK version than the lockfile is a
// failure that names the command to refresh it:
//
//	npm ci --prefix client/internal/interop/jsagent
//
// The package has no API: it is only its test.
package interop
