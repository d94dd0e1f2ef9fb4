//go:build unix

package scripttest

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// fsizeLimitMain is the helper command "fsizelimit BYTES CMD [ARGS...]":
// it runs CMD with no file allowed to grow past BYTES (RLIMIT_FSIZE) — a
// full disk without a small filesystem or root. SIGXFSZ is ignored (Go
// programs ignore it anyway; others would be killed), so a write past the
// limit fails with EFBIG, as one on a full disk fails with ENOSPC. CMD
// replaces the helper (exec), so its exit status is the command's.
func fsizeLimitMain() int {
	args := os.Args[1:]
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fsizelimit BYTES CMD [ARGS...]")
		return 2
	}
	n, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fsizelimit: %v\n", err)
		return 2
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "fsizelimit: %v\n", err)
		return 2
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintf(os.Stderr, "fsizelimit: %v\n", err)
		return 2
	}
	err = syscall.Exec(path, args[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "fsizelimit: exec %s: %v\n", args[1], err)
	return 2
}
