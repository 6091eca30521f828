//go:build race

package testdep

// calibrationRounds and referenceWork: the calibration work under -race,
// and the time it takes on the reference machine idle.
const (
	calibrationRounds = 256
	referenceWork     = 6_900_000 // ns: the best of TestCalibration, idle 2-core machine
)
