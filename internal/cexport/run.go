package cexport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
	"github.com/crawlutils/crawlutils/internal/toolstats"
)

// Command returns the cexport command, for cli.Main or cli.Execute:
// records on stdin (or the files named), the export on stdout or -o FILE
// (which cexport opens itself: -o appends, -O overwrites, and the output
// may be a database).
func Command() *cli.Command {
	c := &command{o: &Options{}}
	return &cli.Command{Name: "cexport", Help: help, Flags: c.define, Run: c.run, OpenStats: toolstats.OpenSink,
		Check: func(env *cli.Env) error { _, err := c.options(env.Flags); return err }}
}

// run is the cexport command, its flags parsed into c.
func (c *command) run(ctx context.Context, env *cli.Env) error {
	o, err := c.options(env.Flags)
	if err != nil {
		return err
	}
	// Upstream got the same signal and will close the pipe after its own
	// in-flight work: read that too, then close the export properly.
	env.Tool.DrainOnInterrupt = env.DrainsOnInterrupt(env.Args)
	var gone chan struct{}
	if o.toFile() {
		// The export is a file (or a table) of its own: stdout's reader
		// going away must not end the process before it is complete.
		gone = make(chan struct{})
		var once sync.Once
		env.OnReaderGone(func() { once.Do(func() { close(gone) }) })
	}
	return run(ctx, env.Tool, o, env.Args, env.Stdin, env.Stdout, env.Now, gone)
}

// run exports with validated options; now is the clock of the ack batching.
// gone, when not nil, is closed when the reader of stdout has gone (the
// process's stdout watcher found it so: see cli.Env.OnReaderGone).
func run(ctx context.Context, tool *cli.Tool, o *Options, files []string, stdin io.Reader, stdout io.Writer, now func() time.Time, gone <-chan struct{}) error {
	if f := inputIsOutput(o.Output, files); f != "" {
		return cli.Usagef("%s %s: it is also an input (%s); write to another file", o.outputFlag(), o.Output, f)
	}
	if o.Gone > 0 {
		return runGone(ctx, tool, o, files, stdout, now)
	}
	s := &session{ctx: ctx, tool: tool, opts: o, stdout: stdout, gone: gone}
	if d := o.declared; d != nil && o.isTable() && len(o.header) == 0 {
		if w := d.unreached(o.Types); w != "" {
			tool.Printf("%s", w)
		}
	}
	switch {
	case o.db != nil:
		// Database calls outlive an interrupt: the last batch is written.
		sink, err := openTableSink(context.WithoutCancel(ctx), o, func(line ndjson.Line, err error) {
			tool.Reject(line, "rejected", err)
			tool.Stats.Out.Add(-1)
			if s.changes != nil {
				s.changes.rejected(line)
			}
		}, tool.Printf)
		if err != nil {
			tool.Fail(err)
			return tool.Done(ctx)
		}
		s.out = &output{name: o.db.display}
		s.exp = sink
	case o.batch != nil:
		s.out = &output{name: o.Output}
		s.exp = &batchExporter{o: o, t: o.batch, warn: tool.Printf, notInHeader: s.notInHeader, now: now,
			written: func(name string, items int) {
				if items >= 0 {
					tool.Stats.Count("files", name, int64(items))
				}
			}}
	case o.StoreEmpty:
		if err := s.open(); err != nil {
			tool.Fail(err)
			return tool.Done(ctx)
		}
	default:
		// Opened at the first item (--store-empty=false).
		s.out = &output{name: o.Output}
	}
	if o.tracksChanges() {
		c, err := openChanges(context.WithoutCancel(ctx), o, now, tool.Printf)
		if err != nil {
			tool.Fail(err)
			return tool.Done(ctx)
		}
		defer c.close()
		s.changes = c
	}
	if o.toFile() {
		s.passOut = ndjson.NewWriter(namedWriter{"stdout", stdout})
		s.pass = newPasser(s.passOut, s.durable, now)
	}
	tool.StartProgress(time.Second, nil)
	s.export(ctx, ndjson.NewReader(files, stdin))
	return tool.Done(ctx)
}

// open opens the file or stdout export.
func (s *session) open() error {
	o := s.opts
	out, err := openOutput(o, s.stdout, s.tool.Printf)
	if err != nil {
		return err
	}
	if h := out.resumed.header; o.isTable() && !o.NoHeader && len(h) > 0 && len(o.header) > 0 && !slices.Equal(h, o.header) {
		s.tool.Printf("--fields %s differs from the header of %s (%s); rows follow --fields",
			strings.Join(o.header, ","), o.Output, strings.Join(h, ","))
	}
	s.out = out
	s.exp = newExporter(o, exportTarget{
		w: bufio.NewWriterSize(out.w, 64<<10), name: out.name,
		resumed: out.resumed, seal: out.seal,
		warn: s.tool.Printf, notInHeader: s.notInHeader,
	})
	return nil
}

// inputIsOutput returns the input file that is the -o file, if any:
// appending to it would never end, truncating it would destroy the input.
func inputIsOutput(output string, files []string) string {
	if output == "" || output == "-" || strings.HasPrefix(output, "postgres") {
		return ""
	}
	out, err := os.Stat(output)
	if err != nil || !out.Mode().IsRegular() {
		return ""
	}
	for _, f := range files {
		if f == "-" {
			continue
		}
		if in, err := os.Stat(f); err == nil && os.SameFile(in, out) {
			return f
		}
	}
	return ""
}

// session is one run's state. Everything happens on the goroutine that
// reads the input.
type session struct {
	// mu is held while a record is handled or the output flushed: the
	// batch clock (startBatchClock) works on the export in between.
	mu   sync.Mutex
	ctx  context.Context
	tool *cli.Tool
	opts *Options
	out  *output
	// exp is nil until the first item with --store-empty=false.
	exp     exporter
	stdout  io.Writer      // the command's stdout
	passOut *ndjson.Writer // pass-through, with -o FILE only
	pass    *passer        // with -o FILE only
	proj    []record.Field
	flat    []record.Field
	// top and data are reused for each line's fields, keys for their keys.
	top, data []record.Field
	keys      *record.KeyCache
	// changes, with --changed-only, --change-fields or --history, judges
	// each item against the last run's (changes.go).
	changes *changeTracker
	// cur is the item being written; notInHeaderN counts the items
	// written without fields the header lacks (notinheader.go).
	cur          current
	notInHeaderN int

	// err is the first output error: it ends the run. broken says it was
	// the export's own output, which then cannot be closed properly.
	err    error
	broken bool

	// gone is closed when the process's stdout watcher finds the reader
	// of stdout gone (nil: not watched). stdoutGone says a write to stdout
	// found it gone (or the watcher did): nothing more is written there.
	// stopped says the reading stops there, the reader gone without an
	// interrupt: the export ends with the records read (readerLeft).
	gone       <-chan struct{}
	stdoutGone bool
	stopped    bool
}

func (s *session) export(ctx context.Context, r *ndjson.Reader) {
	if s.exp != nil {
		if err := s.exp.Begin(); err != nil {
			s.fail(err, true)
		}
	}
	if s.err == nil {
		stop := s.startBatchClock()
		if s.gone == nil {
			s.read(ctx, r)
		} else {
			// The read may wait on an input that stays silent (the
			// commands before are idle): when the reader of stdout goes,
			// the export ends without waiting for it. The goroutine
			// blocked in the read then only ends with the process; what
			// it would still read is not handled (stopped).
			done := make(chan struct{})
			go func() {
				defer close(done)
				s.read(ctx, r)
			}()
			select {
			case <-done:
			case <-s.gone:
				s.mu.Lock()
				s.readerLeft(nil)
				s.mu.Unlock()
			}
		}
		stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end()
}

// read handles the records of r until its end, an output error or the
// reader of stdout gone.
func (s *session) read(ctx context.Context, r *ndjson.Reader) {
	for line, p := range cli.RecordsFunc(ctx, s.tool, r, s.flush, s.parse) {
		s.mu.Lock()
		if s.err == nil && !s.stopped { // else set while waiting for this line
			s.handle(line, p.env, p.fields)
			if s.pass != nil && s.err == nil {
				if err := s.pass.Seen(); err != nil {
					s.passFailed(err)
				}
			}
		}
		done := s.err != nil || s.stopped
		s.mu.Unlock()
		if done {
			break
		}
	}
}

// passFailed handles an error of the pass-through: stdout's (a write to
// it failed) or the export's (making the items before a held ack durable).
func (s *session) passFailed(err error) {
	switch {
	case s.passOut.Err() == nil:
		s.fail(err, true)
	case errors.Is(err, syscall.EPIPE):
		s.readerLeft(err)
	default:
		s.fail(err, false)
	}
}

// readerLeft handles the reader of stdout gone, found by a write that
// failed with err (EPIPE), or by the process's stdout watcher (err nil).
// After an interrupt that is what the interrupt asked for: nothing more
// is passed on (counted as dropped "interrupted"), and the items still
// coming are exported to the end of the input. Without one, the export
// stops reading and ends with the items read, complete, and the exit
// status is cli.ExitReaderGone (128+SIGPIPE, as SIGPIPE would have ended
// it). The caller holds s.mu.
func (s *session) readerLeft(err error) {
	if s.stdoutGone {
		return
	}
	s.stdoutGone = true
	if err != nil && cli.ReaderGoneOnInterrupt(s.ctx, err) {
		return
	}
	s.stopped = true
	s.tool.ReaderGone()
	if !s.tool.Quiet {
		s.tool.Printf("stdout: the reader is gone (the next command of the pipeline exited); stopped reading, and ended %s with the items read", s.out.name)
	}
}

// startBatchClock ends a batch whose --batch-seconds are up while the
// input stalls (no record comes to end it): a goroutine looks every
// quarter of the time (at most every second) and finishes the batch, under
// the session's lock, which every record and flush also takes. stop ends
// the goroutine and waits for it.
func (s *session) startBatchClock() (stop func()) {
	b, ok := s.exp.(*batchExporter)
	if !ok || s.opts.BatchSeconds <= 0 {
		return func() {}
	}
	every := min(time.Second, max(10*time.Millisecond, time.Duration(s.opts.BatchSeconds*float64(time.Second)/4)))
	return cli.Every(every, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.err == nil && b.due() {
			if err := b.finish(); err != nil {
				s.fail(err, true)
			}
		}
	})
}

// parsedLine is a line classified, with its top-level fields.
type parsedLine struct {
	env    record.Envelope
	fields []record.Field
}

// parse classifies a line and scans its top-level fields in one pass, into
// a slice and with keys reused from line to line (the hot path).
func (s *session) parse(line []byte) (parsedLine, error) {
	if s.keys == nil {
		s.keys = record.NewKeyCache(4096)
	}
	env, fields, err := record.ParseFieldsInto(s.top, line, s.keys.Key)
	if fields != nil {
		s.top = fields[:0]
	}
	return parsedLine{env, fields}, err
}

// handle exports an item or passes another record on. top is the record's
// top-level fields.
func (s *session) handle(line ndjson.Line, env record.Envelope, top []record.Field) {
	var fields []record.Field
	var data []byte
	var typ string
	var err error
	switch env.Kind {
	case "":
		data = env.Raw
		fields = record.DedupeFields(top)
	case record.KindItem:
		// Read and checked as every tool reads an item (cdedupe too):
		// its fields' types, its data an object.
		var it record.Item
		if err = record.DecodeItemFields(env.Raw, top, &it); err == nil {
			err = record.CheckItem(&it)
		}
		data, typ = it.Data, it.Type
		if err == nil {
			var ok bool
			fields, ok = record.ScanObjectInto(s.data, data, s.keys.Key)
			if ok {
				s.data = fields[:0]
				fields = record.DedupeFields(fields)
			} else {
				fields, err = record.Fields(data) // for its error
			}
		}
	default:
		s.other(env)
		return
	}
	if err != nil {
		s.tool.Reject(line, "invalid", fmt.Errorf("invalid record: %v", err))
		return
	}
	o := s.opts
	data0 := fields // for the report of fields not in the header
	if len(o.Types) > 0 && !slices.Contains(o.Types, typ) {
		s.tool.Stats.Count("filtered", "type", 1)
		return
	}
	if o.where != nil {
		keep, err := o.where.keep(data, env.Raw)
		if err != nil {
			s.tool.Reject(line, "where_error", fmt.Errorf("--where: %v", err))
			return
		}
		if !keep {
			s.tool.Stats.Count("filtered", "where", 1)
			return
		}
	}
	if s.changes != nil {
		if fields, err = s.checkChange(line, env.Raw, fields); err != nil || fields == nil {
			return
		}
	}
	if o.Flatten {
		fields = flatten(fields, s.flat)
		s.flat = fields[:0]
	}
	if len(o.fields) > 0 {
		fields = project(fields, o.fields, s.proj)
		s.proj = fields
	}
	s.cur = current{line: line, top: top, data: data0}
	s.emit(&line, fields)
	s.cur = current{}
}

// emit writes an item's fields to the export, opened at the first; line
// is the input line it came from (nil for a record of cexport's own).
// It reports whether the export can go on.
func (s *session) emit(line *ndjson.Line, fields []record.Field) bool {
	if s.exp == nil {
		if err := s.open(); err != nil {
			s.fail(err, true)
			return false
		}
		if err := s.exp.Begin(); err != nil {
			s.fail(err, true)
			return false
		}
	}
	s.tool.Stats.Out.Add(1)
	var err error
	if lw, ok := s.exp.(lineWriter); ok && line != nil {
		err = lw.WriteLine(*line, fields)
	} else {
		err = s.exp.Write(fields)
	}
	if err != nil {
		s.tool.Stats.Out.Add(-1)
		s.fail(err, true)
		return false
	}
	return true
}

// lineWriter is an exporter that reports items it rejects with their line
// (a database table).
type lineWriter interface {
	WriteLine(line ndjson.Line, fields []record.Field) error
}

// committer is an exporter whose items are durable once committed (a
// database table), rather than flushed and fsynced.
type committer interface {
	Commit() error
	// Abort lets go of the output after a failure, without writing more.
	Abort() error
}

var knownKinds = map[string]bool{record.KindRequest: true, record.KindResponse: true, record.KindAck: true}

// other passes a record that is not an item on to stdout (with -o FILE) or
// ignores it (the items are on stdout).
func (s *session) other(env record.Envelope) {
	kind := env.Kind
	if !knownKinds[kind] {
		kind = "other" // keep the counters bounded
	}
	if s.pass == nil {
		s.tool.Stats.Count("ignored", kind, 1)
		return
	}
	if s.stdoutGone {
		s.tool.Stats.Drop("interrupted")
		return
	}
	s.tool.Stats.Count("passed", kind, 1)
	if env.Kind == record.KindAck {
		s.pass.Ack(env.Raw)
		return
	}
	if err := s.pass.Forward(env.Raw); err != nil {
		s.passFailed(err)
	}
}

// flush runs whenever the input stalls: the export is flushed so a reader
// of the file sees the items, held acks are committed and forwarded.
func (s *session) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	if s.err != nil || s.exp == nil {
		if s.err == nil && s.pass != nil && !s.stdoutGone {
			if err := s.pass.Flush(); err != nil {
				s.passFailed(err)
			}
		}
		return
	}
	if err := s.exp.Flush(); err != nil {
		s.fail(err, true)
		return
	}
	if err := s.out.Flush(); err != nil {
		s.fail(err, true)
		return
	}
	if s.pass != nil && !s.stdoutGone {
		if err := s.pass.Flush(); err != nil {
			s.passFailed(err)
		}
	}
}

// durable is the passer's commit: flush the export and fsync the file.
func (s *session) durable() error {
	if c, ok := s.exp.(committer); ok {
		if err := c.Commit(); err != nil {
			return err
		}
		return s.commitChanges()
	}
	if s.exp == nil {
		return nil
	}
	if err := s.exp.Flush(); err != nil {
		return err
	}
	if err := s.out.Sync(); err != nil {
		return err
	}
	return s.commitChanges()
}

// end closes the export (so a JSON array or XML document is complete even
// when the input ended early or the run was interrupted), closes the file,
// then releases the held acks: only now are their items durable.
func (s *session) end() {
	if s.exp == nil {
		// No item was exported (--store-empty=false): what the change
		// state learnt (items seen unchanged) is kept all the same.
		if err := s.commitChanges(); err != nil {
			s.fail(err, true)
		}
		s.release()
		return
	}
	if !s.broken {
		if err := s.exp.End(); err != nil {
			s.fail(err, true)
		}
	}
	if c, ok := s.exp.(committer); ok && s.broken {
		if err := c.Abort(); err != nil {
			s.tool.Printf("%v", err)
		}
	}
	if err := s.out.Close(); err != nil {
		s.fail(err, true)
	}
	if !s.broken {
		if err := s.commitChanges(); err != nil {
			s.fail(err, true)
		}
	}
	s.release()
}

// release passes the held acks on, unless the export broke or stdout's
// reader has gone.
func (s *session) release() {
	if s.pass == nil {
		return
	}
	if s.stdoutGone {
		// Held acks never reach the frontier: their pages are handed out
		// again, as after a kill.
		if n := int64(len(s.pass.pending)); n > 0 {
			s.tool.Stats.Count("passed", record.KindAck, -n)
			s.tool.Stats.DropN("interrupted", n)
		}
		return
	}
	if !s.broken {
		if err := s.pass.Release(); err != nil {
			s.passFailed(err)
			return
		}
	} else if n := len(s.pass.pending); n > 0 {
		s.tool.Printf("%d held ack(s) not passed on: the items before them may not be in %s", n, s.out.name)
	}
	if err := s.passOut.Flush(); err != nil {
		s.passFailed(err)
	}
}

// fail reports the first output error; it ends the run. broken says the
// export's output failed (not the pass-through on stdout).
func (s *session) fail(err error, broken bool) {
	s.broken = s.broken || broken
	if s.err == nil {
		s.err = err
		s.tool.Fail(err)
	}
}
