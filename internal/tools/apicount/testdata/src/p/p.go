// Package p is apicount's fixture.
package p

// T has two exported fields, one unexported, and an embedded one.
type T struct {
	A, B int
	c    int
	U
}

// U is an interface with one exported and one unexported method.
type U interface {
	M()
	n()
}

// M is a method on an exported type; m and the method of t are not counted.
func (T) M() {}
func (T) m() {}

type t struct{}

func (t) M() {}

// F, V and C are counted; f is not.
func F() {}
func f() {}

var V, w = 1, 2

const C = 1
