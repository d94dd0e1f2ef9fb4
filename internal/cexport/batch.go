package cexport

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crawlutils/crawlutils/internal/record"
)

// Batches: with --batch-items N or --batch-seconds S, -o names a template
// (items-%(batch_id)05d.csv, Scrapy's placeholders) and the export is cut
// into batch files. Each batch is written under a hidden temporary name in
// the same directory (.items-00001.csv.part), fsynced before every ack as
// any export is, and when it is complete (N items, S seconds, the end of
// the input) closed, fsynced and linked to its own name (a hard link that
// fails if the name exists, so no batch file is ever overwritten), then the
// temporary name is removed and the directory fsynced. A reader, or rsync,
// sees a batch file whole or not at all.
//
// A batch's --batch-seconds are checked as records come, and by the
// session's batch clock while the input stalls (startBatchClock).
//
// Batch ids go on from the highest one in the directory: a rerun of the
// same command numbers its first batch after the last batch of the earlier
// runs. A .part file left by a run that was killed holds acknowledged
// items: the rerun completes it first (cuts off an unfinished last item, as
// -o does, closes a JSON array or XML document) and gives it its name, or
// removes it when it has no whole item.
// One cexport at a time may write batches of one template.

// validateBatch checks the batch flags and parses the -o template.
func (o *Options) validateBatch() error {
	if o.BatchItems < 0 {
		return fmt.Errorf("--batch-items %d: must not be negative", o.BatchItems)
	}
	if o.BatchSeconds < 0 {
		return fmt.Errorf("--batch-seconds %g: must not be negative", o.BatchSeconds)
	}
	if o.BatchItems == 0 && o.BatchSeconds == 0 {
		if o.toFile() && o.db == nil && strings.Contains(o.Output, "%(batch_") {
			return fmt.Errorf("%s %s: batch placeholders need --batch-items N or --batch-seconds S", o.outputFlag(), o.Output)
		}
		return nil
	}
	switch {
	case o.db != nil:
		return fmt.Errorf("--batch-items and --batch-seconds are for files; a table takes every item (%s)", o.db.display)
	case !o.toFile():
		return errors.New("--batch-items and --batch-seconds need -o with a file name template (-o 'items-%(batch_id)05d.csv')")
	case o.Overwrite:
		return errors.New("-O with batches: batch files are never overwritten; use -o (a rerun numbers its batches after the last one there)")
	case o.compress != "" && o.isDocument():
		return fmt.Errorf("-o %s: a compressed JSON array or XML document cannot be completed after a kill; batch .jsonl%s or .csv%s, or an uncompressed .%s", o.Output, filepath.Ext(o.Output), filepath.Ext(o.Output), o.format)
	}
	t, err := parseBatchTemplate(o.Output)
	if err != nil {
		return fmt.Errorf("-o %s: %v", o.Output, err)
	}
	o.batch = t
	return nil
}

// batchExporter writes items into batch files, each through an exporter of
// the format. It is a committer: Commit makes the items written so far
// durable in the open batch file.
type batchExporter struct {
	o    *Options
	t    *batchTemplate
	warn func(format string, a ...any)
	// notInHeader reports an item's fields a batch's header lacks.
	notInHeader func(fields []string, notIn, hint string)
	now         func() time.Time
	// written reports a batch file given its name, with its item count.
	written func(name string, items int)

	nextID int

	cur     *output
	exp     exporter
	part    string // the open batch's temporary name
	final   string // and its own
	items   int
	started time.Time
	any     bool // a batch was written
	// xmlNames reports each key renamed for XML once a run, whatever
	// batch it is first in.
	xmlNames warnOnce
}

// partName is the temporary name of the batch file final.
func partName(final string) string {
	return filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".part")
}

// Begin completes the batches a killed run left, and finds the next id.
func (b *batchExporter) Begin() error {
	dir := b.t.dir()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	maxID := 0
	var parts []string
	for _, e := range entries {
		name := e.Name()
		if p, ok := strings.CutPrefix(name, "."); ok {
			if f, ok := strings.CutSuffix(p, ".part"); ok {
				if id, ok := b.t.match(f); ok {
					maxID = max(maxID, id)
					parts = append(parts, filepath.Join(dir, f))
				}
				continue
			}
		}
		if id, ok := b.t.match(name); ok {
			maxID = max(maxID, id)
		}
	}
	b.nextID = maxID + 1
	for _, final := range parts {
		if err := b.recover(final); err != nil {
			return err
		}
	}
	return nil
}

// recover completes the batch file a killed run left under its temporary
// name: its acknowledged items stay, an unfinished last one is cut off.
// A part with no complete item (killed before its first flush) is removed,
// and so is a part already linked to its name (killed inside publish).
func (b *batchExporter) recover(final string) error {
	bo := *b.o
	bo.Output = partName(final)
	if done, err := published(bo.Output, final); err != nil || done {
		if done {
			b.warn("%s: removed %s, the temporary name a stopped run left on this complete batch", final, filepath.Base(bo.Output))
		}
		return err
	}
	if st, err := os.Stat(bo.Output); err == nil && st.Size() == 0 {
		return os.Remove(bo.Output)
	}
	out, err := openOutput(&bo, nil, b.warn)
	if err != nil {
		return err
	}
	if !out.resumed.items {
		out.Close()
		b.warn("%s: removed %s, left by a stopped run before its first item was whole", final, filepath.Base(bo.Output))
		return os.Remove(bo.Output)
	}
	exp := newExporter(&bo, b.target(out))
	if err := exp.Begin(); err != nil {
		out.Close()
		return err
	}
	if err := exp.End(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	b.warn("%s: completed the batch a stopped run left unfinished (%s)", final, bo.Output)
	return b.publish(bo.Output, final, -1)
}

func (b *batchExporter) target(out *output) exportTarget {
	return exportTarget{
		w: bufio.NewWriterSize(out.w, 64<<10), name: out.name,
		resumed: out.resumed, seal: out.seal, warn: b.warn,
		notInHeader: b.notInHeader, xmlNames: &b.xmlNames,
	}
}

// start opens the next batch file under its temporary name.
func (b *batchExporter) start() error {
	b.started = b.now()
	b.final = b.t.name(b.nextID, b.started)
	b.nextID++
	if _, err := os.Lstat(b.final); err == nil {
		return fmt.Errorf("%s: batch file exists already; batches are never overwritten (is another cexport writing this template?)", b.final)
	}
	b.part = partName(b.final)
	f, err := os.OpenFile(b.part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	switch {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w (is another cexport writing this template?)", b.part, unwrapPath(err))
	case err != nil:
		return fmt.Errorf("%s: %w (the temporary name of batch file %s)", b.part, unwrapPath(err), filepath.Base(b.final))
	}
	f.Close()
	bo := *b.o
	bo.Output, bo.Overwrite = b.part, true
	out, err := openOutput(&bo, nil, b.warn)
	if err != nil {
		return err
	}
	b.cur, b.items = out, 0
	b.exp = newExporter(&bo, b.target(out))
	return b.exp.Begin()
}

// finish ends the open batch: closes its export, fsyncs and names it.
func (b *batchExporter) finish() error {
	if b.cur == nil {
		return nil
	}
	cur, exp := b.cur, b.exp
	b.cur, b.exp = nil, nil
	err := exp.End()
	if cerr := cur.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	b.any = true
	return b.publish(b.part, b.final, b.items)
}

// publish gives the complete batch file part its name final (never
// replacing a file) and makes that durable.
func (b *batchExporter) publish(part, final string, items int) error {
	if err := os.Link(part, final); err != nil {
		return fmt.Errorf("%s: cannot name the batch file: %w", final, unwrapPath(err))
	}
	if err := os.Remove(part); err != nil {
		return fmt.Errorf("%s: %w", part, unwrapPath(err))
	}
	if err := syncDir(filepath.Dir(final)); err != nil {
		return err
	}
	b.written(final, items)
	return nil
}

// published reports whether part is already the batch file final (a run
// killed between publish's link and remove left both names of one file);
// if so it removes part. A different file named final is an error: a
// batch file is never overwritten.
func published(part, final string) (bool, error) {
	fst, err := os.Lstat(final)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	pst, err := os.Lstat(part)
	if err != nil {
		return false, err
	}
	if !os.SameFile(fst, pst) {
		return false, fmt.Errorf("%s: batch file exists already, and is not the file %s a stopped run left; batches are never overwritten", final, filepath.Base(part))
	}
	if err := os.Remove(part); err != nil {
		return false, fmt.Errorf("%s: %w", part, unwrapPath(err))
	}
	return true, syncDir(filepath.Dir(final))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, unwrapPath(err))
	}
	return nil
}

// due reports whether the open batch has been open --batch-seconds.
func (b *batchExporter) due() bool {
	return b.cur != nil && b.o.BatchSeconds > 0 && b.now().Sub(b.started).Seconds() >= b.o.BatchSeconds
}

func (b *batchExporter) Write(fields []record.Field) error {
	if b.due() {
		if err := b.finish(); err != nil {
			return err
		}
	}
	if b.cur == nil {
		if err := b.start(); err != nil {
			return err
		}
	}
	if err := b.exp.Write(fields); err != nil {
		return err
	}
	b.items++
	if b.o.BatchItems > 0 && b.items >= b.o.BatchItems {
		return b.finish()
	}
	return nil
}

// Flush ends a batch that is due, else flushes the open one so a reader of
// the temporary file sees its items.
func (b *batchExporter) Flush() error { return b.settle(false) }

// Commit makes the items written so far durable: those of finished
// batches are, the open batch's are flushed and fsynced.
func (b *batchExporter) Commit() error { return b.settle(true) }

// settle ends a batch that is due, else flushes the open batch and, with
// sync, fsyncs its file.
func (b *batchExporter) settle(sync bool) error {
	if b.cur == nil {
		return nil
	}
	if b.due() {
		return b.finish()
	}
	if err := b.exp.Flush(); err != nil {
		return err
	}
	if sync {
		return b.cur.Sync()
	}
	return b.cur.Flush()
}

// End finishes the open batch. With --store-empty, a run that wrote no
// batch writes one empty batch file.
func (b *batchExporter) End() error {
	if b.cur == nil && !b.any && b.o.StoreEmpty {
		if err := b.start(); err != nil {
			return err
		}
	}
	return b.finish()
}

// Abort leaves the open batch under its temporary name, for the next run
// to complete.
func (b *batchExporter) Abort() error {
	if b.cur == nil {
		return nil
	}
	err := b.cur.Close()
	b.cur, b.exp = nil, nil
	return err
}
