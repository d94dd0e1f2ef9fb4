package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/statspub"
)

// Tool carries a running command's name, stderr, stats and outcome.
// Its methods are safe for concurrent use.
type Tool struct {
	Name string
	// Sub is the subcommand being run (cqueue push), if any: its settings
	// come from its own environment variables (CQUEUE_PUSH_BATCH) and its
	// own config section (cqueue: {push: {batch: …}}); see Flags.Parse.
	Sub    string
	Stderr io.Writer
	Stats  *Stats
	// Quiet silences the progress line and the summary (not errors).
	Quiet bool
	// StatsFile, when set, receives the stats as JSON at Finish.
	StatsFile string
	// StatsEvery, when positive, also rewrites StatsFile that often while
	// the command runs: from StartProgress or the first Records, until
	// Finish (--stats-every).
	StatsEvery time.Duration
	// StatsTo, when set, is the crawl's store (an SQLite frontier file or
	// a Redis URL) to publish the stats to, every StatsEvery (5s when
	// 0), for cqueue serve (--stats-to; see publish.go). StatsCrawlID
	// names the crawl in what is published (--stats-crawlid).
	StatsTo, StatsCrawlID string
	// OpenStats opens the store StatsTo names; nil: the command cannot
	// publish its stats, which --stats-to says once. Execute sets it
	// from the Command's.
	OpenStats statspub.Opener
	// Gauges, when set, returns the command's levels at the moment (held
	// in flight, queued, hosts resting, …) for the stats' "gauges". It is
	// called on another goroutine, at each write of the stats file.
	Gauges func() map[string]int64
	// RateOut makes the progress line's rate count records written rather
	// than read (cfetch reads requests ahead; its pace is its responses).
	RateOut bool
	// DrainOnInterrupt makes Records read to the end of input after a
	// signal instead of stopping (see IsPipe).
	DrainOnInterrupt bool
	// LeasePath and Answer make Reject answer a rejected line that holds
	// a lease at LeasePath (["request", "lease"] in a response, ["lease"]
	// in a request), found even in a record too deep or too broken to
	// parse (record.FindString): Answer gets an ack with the error
	// "invalid_record" to write, so a crawl loop dead-letters the request
	// instead of renewing its lease forever. The last line of an input
	// that ends without a newline is not answered (see answer).
	LeasePath []string
	Answer    func(ack []byte)
	// Getenv reads the environment variables that set flags and name the
	// config file (see Flags.Parse); nil reads none. Execute sets it from
	// the command's Env.
	Getenv func(string) string

	mu         sync.Mutex
	failed     bool
	partial    bool
	readerGone bool
	progress   *progress
	writer     *statsWriter
	stopPub    func(code int) // of the publisher, once started
}

// NewTool returns a Tool writing messages to stderr, reading no
// environment (Execute sets Getenv from the command's Env).
func NewTool(name string, stderr io.Writer) *Tool {
	return &Tool{Name: name, Stderr: stderr, Stats: NewStats()}
}

// getenv is t.Getenv, or no environment.
func (t *Tool) getenv(k string) string {
	if t.Getenv == nil {
		return ""
	}
	return t.Getenv(k)
}

// Done is Finish as the error a command's Run returns: nil, or the exit
// status of what was reported while the command ran (see Exit).
func (t *Tool) Done(ctx context.Context) error {
	return Exit(t.Finish(ctx))
}

// Printf writes one "name: message" line to stderr.
func (t *Tool) Printf(format string, a ...any) {
	msg := strings.TrimRight(fmt.Sprintf(format, a...), "\n")
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.progress != nil {
		t.progress.clearLocked()
	}
	fmt.Fprintf(t.Stderr, "%s: %s\n", t.Name, msg)
}

// label names the command in its summary and progress line: with its
// subcommand (cqueue pop, cqueue push), so that two subcommands of one
// pipeline can be told apart.
func (t *Tool) label() string {
	if t.Sub == "" {
		return t.Name
	}
	return t.Name + " " + t.Sub
}

// Fail reports err and makes the exit status 1.
func (t *Tool) Fail(err error) {
	t.Printf("%v", err)
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}

// Reject reports an input line that was skipped, counts it as dropped for
// reason, and makes the exit status 3: "name: <stdin>:42: msg".
func (t *Tool) Reject(line ndjson.Line, reason string, err error) {
	t.Printf("%s: %v", line.Pos(), err)
	t.Stats.Drop(reason)
	t.MarkPartial()
	t.answer(line)
}

// answer writes the ack of a rejected leased line (see LeasePath). A line
// the input ended inside is not answered: the command before died while
// writing it, the record itself was whole, and its request must be fetched
// again (its lease is reclaimed), not dead-lettered.
func (t *Tool) answer(line ndjson.Line) {
	raw := line.Bytes
	if t.Answer == nil || len(t.LeasePath) == 0 || line.Unterminated {
		return
	}
	lease, ok := record.FindString(raw, t.LeasePath...)
	if !ok || lease == "" {
		return
	}
	url, _ := record.FindString(raw, "url")
	b, err := record.Encode(&record.Ack{Kind: record.KindAck, Lease: lease, URL: url, Error: record.ErrInvalidRecord})
	if err != nil {
		return
	}
	t.Stats.Count("acks", "invalid_record", 1)
	t.Answer(b)
}

// ReaderGone makes the exit status ExitReaderGone (unless the command was
// interrupted or failed): the command stopped early, its file complete,
// because its stdout's reader went away (see Env.OnReaderGone).
func (t *Tool) ReaderGone() {
	t.mu.Lock()
	t.readerGone = true
	t.mu.Unlock()
}

// MarkPartial makes the exit status 3 (unless something worse happened).
func (t *Tool) MarkPartial() {
	t.mu.Lock()
	t.partial = true
	t.mu.Unlock()
}

// Relay writes line, a message another program wrote on its stderr, as it
// is (with a newline), clearing the progress line first.
func (t *Tool) Relay(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.progress != nil {
		t.progress.clearLocked()
	}
	fmt.Fprintf(t.Stderr, "%s\n", strings.TrimRight(line, "\n"))
}

// Records yields the records of the input, one per line. Lines that cannot
// be read or parsed are reported with Reject and skipped. flush is called
// before every read that could block, so output never waits on a buffer
// while input stalls. It stops at the end of input, or when ctx is done
// unless DrainOnInterrupt is set. The context is checked between reads
// only: a read blocked on a silent input stays blocked, so a command that
// must stop at once reads in a goroutine and stops waiting for it.
func (t *Tool) Records(ctx context.Context, r *ndjson.Reader, flush func()) iter.Seq2[ndjson.Line, record.Envelope] {
	return RecordsFunc(ctx, t, r, flush, record.Parse)
}

// RecordsFunc is Records with another classifier of lines than
// record.Parse, for a command that wants more out of each line in the same
// pass; parse's errors are reported and counted as Records does.
func RecordsFunc[T any](ctx context.Context, t *Tool, r *ndjson.Reader, flush func(), parse func([]byte) (T, error)) iter.Seq2[ndjson.Line, T] {
	return func(yield func(ndjson.Line, T) bool) {
		t.startStatsWriter()
		for {
			if ctx.Err() != nil && !t.DrainOnInterrupt {
				return
			}
			if !r.Buffered() && flush != nil {
				flush()
			}
			line, err := r.Next()
			if err == io.EOF {
				return
			}
			var le *ndjson.LineError
			switch {
			case errors.As(err, &le):
				t.Stats.In.Add(1)
				t.Reject(le.Line, "invalid", fmt.Errorf("invalid record: %v", le.Err))
				continue
			case err != nil:
				// A file that could not be opened or read to its end:
				// reported, exit 1, and the inputs after it are read, as
				// cat and jq go on with their next file.
				t.Fail(err)
				continue
			}
			t.Stats.In.Add(1)
			t.Stats.Bytes.Add(int64(len(line.Bytes)) + 1)
			rec, err := parse(line.Bytes)
			if err != nil {
				reason := "invalid"
				if errors.Is(err, record.ErrEmpty) {
					reason = "empty"
				}
				if line.Unterminated {
					// Say why the record is cut short: not a bug of the
					// command that reads it.
					err = fmt.Errorf("%w (%s)", err, tornLine)
				}
				t.Reject(line, reason, fmt.Errorf("invalid record: %v", err))
				continue
			}
			if !yield(line, rec) {
				return
			}
		}
	}
}

// tornLine explains a bad last line that ends without its newline.
const tornLine = "the input ended inside this line, without its newline: did the command writing it die?"

// Finish stops the progress line, prints the summary (unless Quiet), writes
// the stats file and returns the exit status.
func (t *Tool) Finish(ctx context.Context) int {
	t.stopProgress()
	t.stopStatsWriter()
	if !t.Quiet {
		t.Relay(t.label() + ": " + t.Stats.Summary())
	}
	if t.StatsFile != "" {
		if err := t.writeStats(); err != nil {
			t.Fail(fmt.Errorf("write stats: %w", err))
		}
	}
	code := t.exitCode(ctx)
	t.finishPublisher(code)
	return code
}

func (t *Tool) exitCode(ctx context.Context) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case Interrupted(ctx):
		return ExitInterrupted
	case t.failed:
		return ExitFailure
	case t.readerGone:
		return ExitReaderGone
	case t.partial:
		return ExitPartial
	}
	return ExitOK
}
