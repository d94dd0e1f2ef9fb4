package cfetch

import (
	"io"
	"log"
	"strings"
	"sync"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// net/http writes some complaints through the standard logger ("Unsolicited
// response received on idle HTTP channel …" when a server sends more than
// its Content-Length); its Transport has no logger of its own. While a run
// is going on, routeStdLog sends those lines to the run's stderr as
// warnings, "cfetch: warning: …", so that every line follows the tool's
// format. Runs may overlap (tests): the latest one still running gets them.
var stdLog struct {
	once    sync.Once
	mu      sync.Mutex
	tools   []*cli.Tool
	prevOut io.Writer
}

// routeStdLog starts routing the standard logger to tool and returns the
// function that stops it. The logger's output is replaced once, for good
// (changing it back while net/http may be writing to it would need the
// logger's lock and ours in both orders); with no run going on, lines go
// where they went before.
func routeStdLog(tool *cli.Tool) (restore func()) {
	stdLog.once.Do(func() {
		stdLog.prevOut = log.Writer()
		log.SetOutput(stdLogWriter{})
		log.SetFlags(0)
	})
	stdLog.mu.Lock()
	stdLog.tools = append(stdLog.tools, tool)
	stdLog.mu.Unlock()
	return func() {
		stdLog.mu.Lock()
		defer stdLog.mu.Unlock()
		for i, t := range stdLog.tools {
			if t == tool {
				stdLog.tools = append(stdLog.tools[:i], stdLog.tools[i+1:]...)
				break
			}
		}
	}
}

// stdLogWriter writes each line of the standard logger as a warning of the
// latest run.
type stdLogWriter struct{}

func (stdLogWriter) Write(p []byte) (int, error) {
	stdLog.mu.Lock()
	var tool *cli.Tool
	if n := len(stdLog.tools); n > 0 {
		tool = stdLog.tools[n-1]
	}
	stdLog.mu.Unlock()
	if tool == nil {
		return stdLog.prevOut.Write(p)
	}
	for line := range strings.Lines(string(p)) {
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			tool.Printf("warning: %s", line)
		}
	}
	return len(p), nil
}
