package testdep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// announce writes line where the person running the tests sees it: this
// process's standard output when that is shown (shown, or it is the go
// command's own output, or the go command did not start this process),
// else the go command's standard output when that is a terminal, a pipe, a
// socket or a file it appends to (`>>`; a file it writes at its own offset,
// `>`, is left alone: the go command's next write would overwrite the line). The files are opened with syscall,
// not os, so that the go command's test cache does not count them as
// inputs of the test.
func announce(line string, shown bool) {
	if shown || !parentIsGo() || sameAsParentStdout() {
		os.Stdout.WriteString(line)
		return
	}
	fd, err := syscall.Open(parentStdout(), syscall.O_WRONLY|syscall.O_APPEND|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Stdout.WriteString(line)
		return
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFREG && !parentAppends() {
		os.Stdout.WriteString(line)
		return
	}
	syscall.Write(fd, []byte(line)) // one write: lines of parallel packages do not interleave
}

func parentStdout() string { return "/proc/" + strconv.Itoa(os.Getppid()) + "/fd/1" }

func parentIsGo() bool {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/"+strconv.Itoa(os.Getppid())+"/exe", buf)
	if err != nil || n <= 0 {
		return false
	}
	name := filepath.Base(string(buf[:n]))
	return name == "go" || strings.HasPrefix(name, "go ") // "go (deleted)" after an upgrade
}

// sameAsParentStdout reports whether this process writes straight to the
// go command's standard output (it does in `go test` without package
// arguments, which streams).
func sameAsParentStdout() bool {
	var mine, theirs syscall.Stat_t
	if syscall.Fstat(1, &mine) != nil || syscall.Stat(parentStdout(), &theirs) != nil {
		return false
	}
	return mine.Dev == theirs.Dev && mine.Ino == theirs.Ino
}

// parentAppends reports whether the go command's standard output is open
// with O_APPEND (its fdinfo's flags, in octal).
func parentAppends() bool {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(os.Getppid())+"/fdinfo/1", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	buf := make([]byte, 512)
	n, _ := syscall.Read(fd, buf)
	for _, l := range strings.Split(string(buf[:max(n, 0)]), "\n") {
		if v, ok := strings.CutPrefix(l, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_APPEND != 0
		}
	}
	return false
}
