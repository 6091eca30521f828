//go:build !race

package testdep

// calibrationRounds and referenceWork: the calibration work without -race,
// and the time it takes on the reference machine idle.
const (
	calibrationRounds = 1024
	referenceWork     = 4_600_000 // ns: the best of TestCalibration, idle 2-core machine
)

// Race: see race_on.go.
const Race = false
