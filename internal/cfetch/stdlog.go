package cfetch

import (
	"io"
	"log"
	"regexp"
	"strings"
	"sync"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// net/http writes some complaints through the standard logger ("Unsolicited
// response received on idle HTTP channel …" when a server sends more than
// its Content-Length); its Transport has no logger of its own. While a run
// is going on, routeStdLog sends those lines to the run's stderr as
// warnings, "cfetch: warning: …", told in our words (translateStdLog), so
// that every line follows the tool's format. Runs may overlap (tests): the
// latest one still running gets them.
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
			tool.Printf("warning: %s", translateStdLog(line))
		}
	}
	return len(p), nil
}

// h2Frame is how net/http's HTTP/2 client names a frame in its logs: by
// its Go type (%T), "*http.http2HeadersFrame".
var h2Frame = regexp.MustCompile(`\*?http\.http2(\w+?)Frame\b`)

// translateStdLog says what a line net/http logs means, without Go's type
// names, field names or "err=<nil>"; a line it does not know comes out as
// it is.
func translateStdLog(line string) string {
	const unsolicited = "Unsolicited response received on idle HTTP channel starting with "
	if rest, ok := strings.CutPrefix(line, unsolicited); ok {
		start, cause := rest, ""
		if i := strings.LastIndex(rest, "; err="); i >= 0 {
			start, cause = rest[:i], rest[i+len("; err="):]
		}
		s := "a server sent data no request asked for, starting with " + start + ": its connection was closed"
		if cause != "" && cause != "<nil>" {
			s += " (" + cause + ")"
		}
		return s
	}
	if rest, ok := strings.CutPrefix(line, "Error enabling Transport HTTP/2 support: "); ok {
		return "HTTP/2 is off: " + rest
	}
	frame := func(m string) string {
		name := h2Frame.FindStringSubmatch(m)[1]
		var b strings.Builder
		for i, r := range name {
			if i > 0 && 'A' <= r && r <= 'Z' {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		}
		return strings.ToUpper(b.String()) + " frame"
	}
	switch {
	case strings.HasPrefix(line, "protocol error: received "):
		return "HTTP/2 protocol error: a server sent " + addArticle(h2Frame.ReplaceAllStringFunc(strings.TrimPrefix(line, "protocol error: received "), frame))
	case strings.HasPrefix(line, "Transport: unhandled response frame type "):
		return "HTTP/2: a server sent an unexpected " + h2Frame.ReplaceAllStringFunc(strings.TrimPrefix(line, "Transport: unhandled response frame type "), frame)
	case line == "http2: Transport received unsolicited DATA frame; closing connection":
		return "HTTP/2: a server sent a DATA frame no request asked for: its connection was closed"
	}
	line = strings.TrimPrefix(line, "net/http: ")
	line = strings.ReplaceAll(line, "Cookie.Value", "a cookie value")
	line = strings.ReplaceAll(line, "Cookie.Domain", "a cookie's Domain")
	return h2Frame.ReplaceAllStringFunc(line, frame)
}

// addArticle puts "a" before a frame named at the start of s ("a HEADERS
// frame before …"), nothing before a bare frame type ("DATA after …").
func addArticle(s string) string {
	if _, rest, _ := strings.Cut(s, " "); strings.HasPrefix(rest, "frame") {
		return "a " + s
	}
	return s
}
