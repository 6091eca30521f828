//go:build !race

package react_test

const raceEnabled = false
