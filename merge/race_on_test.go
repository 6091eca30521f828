//go:build race

package merge

// propertyTrajectories is 100 under the race detector, 500 without: the
// property tests run in one goroutine, where the detector finds nothing and
// costs ~10×; .ci/run runs them whole without it.
const propertyTrajectories = 100
