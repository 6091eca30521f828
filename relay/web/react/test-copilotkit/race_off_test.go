//go:build !race

package copilotkit_test

const raceEnabled = false
