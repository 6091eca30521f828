//go:build race

package testdep

// calibrationRounds and referenceWork: the calibration work under -race,
// and the time it takes on the reference machine idle.
const (
	calibrationRounds = 256
	referenceWork     = 6_900_000 // ns: the best of TestCalibration, idle 2-core machine
)

// Race is whether the test binary was built with -race: a test that runs
// in one goroutine can do less of its work under it (the detector finds
// nothing there and costs ~10×), and a program a test builds can be built
// with -race too, so that its packages are those go test -race compiled.
const Race = true
