//go:build !unix

package cli

import (
	"io"
	"os"
	"time"
)

// ReaderGone cannot tell here: a closed pipe is noticed at the next write.
func ReaderGone(io.Writer) bool { return false }

// watchOutput cannot tell here: a closed pipe is noticed at the next write.
func watchOutput(*os.File, time.Duration, func()) (stop func()) { return func() {} }

// ignoreSIGPIPE: a closed pipe never kills the process here.
func ignoreSIGPIPE() {}
