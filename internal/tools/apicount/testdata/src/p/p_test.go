package p

// Test files are not counted.
func Exported() {}
