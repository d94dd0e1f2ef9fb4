package crawl

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// inProc is a stage of the loop run in this process, through cli.Execute,
// as its own process would run it (runsInside). A process of its own would
// cost the crawl a Go runtime, a heap with its collector's headroom, and
// the pages of its binary (docs/performance.md).
//
// It reads and writes through the pipe ends given to it (own), which it
// closes when it ends, as an exiting process would. Its drain is its
// context cancelled with cli.ErrInterrupted, what its own process does on
// a first interrupt; it is killed by its context cancelled with
// cli.ErrKilled and its pipe ends closed under it (a command reading its
// stdin stops at the read error).
type inProc struct {
	cmd  *cli.Command
	args []string // after the program's name
	env  func(string) string

	stdin  io.Reader // nil: an empty input (pop reads nothing)
	stdout io.Writer
	stderr io.Writer
	owned  []*os.File // the pipe ends given to it, closed when it ends

	ctx     context.Context
	cancel  context.CancelCauseFunc
	started bool
	// exited is set as the command returns, before its pipe ends are
	// closed: a stage that then reads the end of its input sees it set.
	exited atomic.Bool
	done   chan struct{}
	code   int
	once   sync.Once
}

// runsInside reports whether the loop's stage key runs in this process:
// every stage but cfetch and cthrottle. Those two talk to the network and
// hold what a crash or a hang there must not take down with the crawl: a
// browser's processes, the throttle's schedule, a memory limit of their
// own (cfetch --max-memory). The others read and write records only, and
// a panic on one record is recovered by the tool itself.
func runsInside(key string) bool {
	switch key {
	case "pop", "push", "cextract", "cexport":
		return true
	}
	return false
}

// own gives the stage a pipe end to close when it ends.
func (p *inProc) own(f *os.File) { p.owned = append(p.owned, f) }

func (p *inProc) start() {
	p.ctx, p.cancel = context.WithCancelCause(context.Background())
	p.done = make(chan struct{})
	p.started = true
	stdin := p.stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	go func() {
		defer close(p.done)
		env := &cli.Env{Stdin: stdin, Stdout: p.stdout, Stderr: p.stderr, Getenv: p.env}
		p.code = cli.Execute(p.ctx, p.cmd, p.args, env)
		p.exited.Store(true)
		p.closeFiles()
	}()
}

func (p *inProc) closeFiles() {
	p.once.Do(func() {
		for _, f := range p.owned {
			f.Close()
		}
	})
}

// wait waits for the command's end and returns its exit status.
func (p *inProc) wait() int {
	if p.started {
		<-p.done
	}
	return p.code
}

// drain stops it as a first interrupt would: it reads on to the end of
// its input.
func (p *inProc) drain() {
	if p.started {
		p.cancel(cli.ErrInterrupted)
	}
}

// kill ends it: its context cancelled and its pipe ends closed under it.
func (p *inProc) kill() {
	if p.started {
		p.cancel(cli.ErrKilled)
	}
	p.closeFiles()
}
