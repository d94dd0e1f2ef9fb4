package crawl

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/crawlutils/crawlutils/internal/cli"
)

// inProc is a stage of the loop run in this process, through cli.Execute,
// as its own process would run it: cqueue push, the loop's last stage. A
// process of its own would cost the crawl one more Go runtime, and the
// pages of the cqueue binary once more (docs/performance.md).
//
// It reads and writes through the pipe ends given to it, which it closes
// when it ends, as an exiting process would. Its drain is its context
// cancelled with cli.ErrInterrupted, what its own process does on a first
// interrupt; it is killed by closing its stdin (it stops at the read
// error) after its context is cancelled.
type inProc struct {
	cmd  *cli.Command
	args []string // after the program's name
	env  func(string) string

	stdin  *os.File  // the read end of its input pipe
	stdout io.Writer // not closed: this command's own stdout
	stderr *os.File  // the write end of its stderr pipe

	ctx     context.Context
	cancel  context.CancelCauseFunc
	started bool
	done    chan struct{}
	code    int
	once    sync.Once
}

// errKilled is the cause of an in-process stage's context when it is
// killed.
var errKilled = errors.New("killed")

func (p *inProc) start() {
	p.ctx, p.cancel = context.WithCancelCause(context.Background())
	p.done = make(chan struct{})
	p.started = true
	go func() {
		defer close(p.done)
		env := &cli.Env{Stdin: p.stdin, Stdout: p.stdout, Stderr: p.stderr, Getenv: p.env}
		p.code = cli.Execute(p.ctx, p.cmd, p.args, env)
		p.closeFiles()
	}()
}

func (p *inProc) closeFiles() {
	p.once.Do(func() {
		if p.stdin != nil {
			p.stdin.Close()
		}
		if p.stderr != nil {
			p.stderr.Close()
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

// kill ends it: its context cancelled and its input closed under it.
func (p *inProc) kill() {
	if !p.started {
		p.closeFiles()
		return
	}
	p.cancel(errKilled)
	p.closeFiles()
}
