package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress redraws one status line on a terminal's stderr.
type progress struct {
	w     io.Writer
	line  func() string
	stop  chan struct{}
	done  chan struct{}
	shown bool
}

// StartProgress shows a live progress line on stderr every interval when
// stderr is a terminal and the tool is not Quiet; extra, if not nil, adds
// command-specific figures (in flight, current delays, …). It also starts
// the periodic writes of the stats file (Tool.StatsEvery).
func (t *Tool) StartProgress(interval time.Duration, extra func() string) {
	t.startStatsWriter()
	t.StartStatusLine(interval, func() string {
		n := t.Stats.In.Load()
		if t.RateOut {
			n = t.Stats.Out.Load()
		}
		line := fmt.Sprintf("%d in, %d out, %d dropped, %d errors, %s/s",
			t.Stats.In.Load(), t.Stats.Out.Load(), t.Stats.Dropped(), t.Stats.Errors(), rate(n, t.Stats.Elapsed()))
		if extra != nil {
			line += ", " + extra()
		}
		return line
	})
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// StartStatusLine shows "name: " + line() on stderr, redrawn every interval
// in place, when stderr is a terminal and the tool is not Quiet. Printf,
// Relay and Finish clear it before they write. A command shows one status
// line at most: StartProgress's, or its own through this.
func (t *Tool) StartStatusLine(interval time.Duration, line func() string) {
	if t.Quiet || !IsTerminal(t.Stderr) {
		return
	}
	p := &progress{w: t.Stderr, line: line, stop: make(chan struct{}), done: make(chan struct{})}
	t.mu.Lock()
	t.progress = p
	t.mu.Unlock()
	go func() {
		defer close(p.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				text := p.line()
				t.mu.Lock()
				fmt.Fprintf(p.w, "\r\033[K%s: %s", t.label(), text)
				p.shown = true
				t.mu.Unlock()
			}
		}
	}()
}

func (p *progress) clearLocked() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// StopStatusLine stops the status line and clears it; Finish does too.
func (t *Tool) StopStatusLine() { t.stopProgress() }

func (t *Tool) stopProgress() {
	t.mu.Lock()
	p := t.progress
	t.progress = nil
	t.mu.Unlock()
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	t.mu.Lock()
	p.clearLocked()
	t.mu.Unlock()
}
