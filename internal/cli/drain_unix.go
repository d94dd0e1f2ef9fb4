//go:build unix

package cli

import (
	"os"
	"syscall"
)

const drainSignal = syscall.SIGUSR2

var drainSignals = []os.Signal{drainSignal}

func isDrainSignal(s os.Signal) bool { return s == drainSignal }
