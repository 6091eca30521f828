//go:build race

package react_test

// raceEnabled: the orchestrator the tests run is built with -race too, so
// that its packages are those go test -race just compiled, not all
// compiled again without it.
const raceEnabled = true
