//go:build unix

package testdep

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on dir/.npm-ci.lock, waiting for other
// processes that hold it, and returns its release.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".npm-ci.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing releases the lock
}
