package frontier

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// processAlive reports whether a process with this id exists and is not a
// zombie (a killed process whose parent has not reaped it yet).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	state := stat[i+2]
	return state != 'Z' && state != 'X'
}
