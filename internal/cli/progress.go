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
	extra func() string
	stop  chan struct{}
	done  chan struct{}
	shown bool
}

// StartProgress shows a live progress line on stderr every interval when
// stderr is a terminal and the tool is not Quiet; extra, if not nil, adds
// command-specific figures (in flight, current delays, …).
func (t *Tool) StartProgress(interval time.Duration, extra func() string) {
	f, ok := t.Stderr.(*os.File)
	if t.Quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return
	}
	p := &progress{w: t.Stderr, extra: extra, stop: make(chan struct{}), done: make(chan struct{})}
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
				line := fmt.Sprintf("%s: %d in, %d out, %d dropped, %d errors, %s/s",
					t.Name, t.Stats.In.Load(), t.Stats.Out.Load(), t.Stats.Dropped(), t.Stats.Errors(),
					rate(t.Stats.In.Load(), t.Stats.Elapsed()))
				if p.extra != nil {
					line += ", " + p.extra()
				}
				t.mu.Lock()
				fmt.Fprintf(p.w, "\r\033[K%s", line)
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
