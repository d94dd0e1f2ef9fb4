package childproc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// Catches reports whether the process pid has a handler of its own for
// sig, from the SigCgt mask of /proc/PID/status. A Go program has one
// once its runtime has started; until then (between its start and its
// runtime's first steps, which on a busy machine can take tens of
// milliseconds) a signal whose default is to end the process ends it. known
// is false where that cannot be told (no /proc, the process is gone).
func Catches(pid int, sig syscall.Signal) (catches, known bool) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, false
	}
	return caughtIn(status, sig)
}

// caughtIn reads sig's bit of the SigCgt line of a /proc/PID/status.
func caughtIn(status []byte, sig syscall.Signal) (catches, known bool) {
	for line := range bytes.Lines(status) {
		hex, ok := bytes.CutPrefix(line, []byte("SigCgt:"))
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(string(bytes.TrimSpace(hex)), 16, 64)
		if err != nil || sig < 1 || sig > 64 {
			return false, false
		}
		return mask&(1<<(uint(sig)-1)) != 0, true
	}
	return false, false
}
