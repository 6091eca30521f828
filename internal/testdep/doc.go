// Package testdep is how the module's tests meet the real programs they
// drive — node and the npm packages pinned in a lockfile, Chromium,
// redis-server — and how long they may wait for them.
//
// The model: a test asks for a dependency ([Node], [NPM], [ChromiumPath],
// [RedisServer]; the browser itself is started by package chromium, so
// that only browser tests link chromedp) and gets it, or the test ends at once with the reason.
// Whether that end is a skip or a failure is one decision for the whole
// module ([Required]): where CI is set, or A2A_PROGRESS_REQUIRE_INTEROP,
// a missing dependency fails the test; elsewhere it skips. Every skip is
// recorded, and a package whose TestMain runs through [Reporting] prints
// one line saying how many tests skipped and why — visible in a plain
// `go test ./...`, which otherwise shows only "ok" for such a package.
//
// Budgets: a test that must give up on a hang waits for a budget derived
// from the work and the machine, never a bare wall-clock constant.
// [Budget] scales a budget measured on an idle machine by how slow this
// process runs right now ([Slowness], a measured calibration); [Watchdog]
// ends a test's context only when the test has made no progress
// ([Progress]) for a while, however long the whole run takes.
//
// The package is internal: it is for this module's tests only.
package testdep
