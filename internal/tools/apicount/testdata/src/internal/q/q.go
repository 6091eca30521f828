// Package q is internal: not counted.
package q

// X is not counted.
func X() {}
