package statspub

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/childproc"
)

// A relay is how a command that links no database driver (cextract)
// publishes its stats: it starts `cqueue stats-relay STORE`, which opens
// the store, and writes it each round's snapshots on a pipe, one JSON line
// a round; the relay answers each line with one line, empty when the
// snapshots are stored, else the error. So the command's binary stays
// free of SQLite and Redis, and its stats still reach cqueue serve.

// RelayCommand is the command that relays: cqueue, found next to the
// running program (the six commands are installed together), else on
// $PATH.
const RelayCommand = "cqueue"

// relayLine is what the command writes the relay for a round.
type relayLine struct {
	Now   time.Time  `json:"now"`
	Snaps []Snapshot `json:"snapshots"`
}

// RelayOpener is an Opener whose sink is a cqueue stats-relay process.
func RelayOpener(ctx context.Context, dsn string, timeout time.Duration, getenv func(string) string) (Sink, error) {
	path, err := findRelay()
	if err != nil {
		return nil, err
	}
	// The relay lives as long as the sink: Close ends it (its input
	// closed); it ends too when the command dies and the pipe breaks.
	cmd := exec.Command(path, "stats-relay", "--busy-timeout", timeout.String(), dsn)
	cmd.Env = relayEnv(getenv)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s stats-relay: %w", path, err)
	}
	r := newRelay(cmd, in, out)
	// The first line says whether the store opened.
	r.pending = 1
	if err := r.drain(ctx); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	return r, nil
}

// findRelay returns the path of cqueue.
func findRelay() (string, error) {
	p, err := childproc.Find(RelayCommand)
	if err != nil {
		return "", fmt.Errorf("publishing needs %s (next to this program or on $PATH): %w", RelayCommand, err)
	}
	return p, nil
}

// relayEnv is the process environment with the settings getenv gives for
// the stores (a Redis password, TLS files) over it.
func relayEnv(getenv func(string) string) []string {
	env := os.Environ()
	if getenv == nil {
		return env
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

type relay struct {
	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	answers chan error // one per line the relay read; closed when it exits
	pending int        // lines written whose answer is not read yet
}

// newRelay starts reading the relay's answers.
func newRelay(cmd *exec.Cmd, in io.WriteCloser, out io.Reader) *relay {
	r := &relay{cmd: cmd, in: in, answers: make(chan error, 4)}
	go func() {
		defer close(r.answers)
		br := bufio.NewReader(out)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if msg := strings.TrimSuffix(l, "\n"); msg != "" {
				r.answers <- errors.New(msg)
			} else {
				r.answers <- nil
			}
		}
	}()
	return r
}

// Put implements Sink. A Put that gives up with ctx leaves its answer to
// be read by the next one, which waits for it first.
func (r *relay) Put(ctx context.Context, now time.Time, snaps ...Snapshot) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.drain(ctx); err != nil {
		return err
	}
	b, err := json.Marshal(relayLine{Now: now, Snaps: snaps})
	if err != nil {
		return err
	}
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("stats relay: %w", err)
	}
	r.pending++
	return r.drain(ctx)
}

// drain reads the answers of the lines written, the last one's error
// returned.
func (r *relay) drain(ctx context.Context) error {
	var last error
	for r.pending > 0 {
		select {
		case err, ok := <-r.answers:
			if !ok {
				return errors.New("stats relay: exited")
			}
			r.pending--
			last = err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return last
}

// Close implements Sink: the relay ends when its input does.
func (r *relay) Close() error {
	r.in.Close()
	return r.cmd.Wait()
}

// ServeRelay is the relay's side: it answers "" once sink is open (or
// the error of opening it), then stores each line's snapshots and answers
// each, until r ends.
func ServeRelay(ctx context.Context, r io.Reader, w io.Writer, sink Sink, openErr error) error {
	bw := bufio.NewWriter(w)
	say := func(err error) error {
		msg := ""
		if err != nil {
			msg = strings.ReplaceAll(err.Error(), "\n", " ")
		}
		if _, err := bw.WriteString(msg + "\n"); err != nil {
			return err
		}
		return bw.Flush()
	}
	if openErr != nil {
		return say(openErr)
	}
	if err := say(nil); err != nil {
		return err
	}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var l relayLine
			perr := json.Unmarshal(line, &l)
			if perr == nil {
				perr = sink.Put(ctx, l.Now, l.Snaps...)
			}
			if werr := say(perr); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
