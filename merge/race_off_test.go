//go:build !race

package merge

// propertyTrajectories: see race_on_test.go.
const propertyTrajectories = 500
