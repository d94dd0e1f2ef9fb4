//go:build !unix

package cli

import "os"

var drainSignal os.Signal

var drainSignals []os.Signal

func isDrainSignal(os.Signal) bool { return false }
