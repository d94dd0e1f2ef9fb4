package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// statsWriter rewrites the stats file every Tool.StatsEvery.
type statsWriter struct {
	stop, done chan struct{}
	once       sync.Once
}

// statsJSON is the stats document, gauges included.
func (t *Tool) statsJSON() StatsJSON {
	s := t.Stats.JSON(t.Name)
	if t.Gauges != nil {
		s.Gauges = t.Gauges()
	}
	return s
}

// writeStats writes the stats to StatsFile. A regular file (or a new one)
// is replaced atomically, through a temporary file renamed over it, so a
// program reading it while the command runs never sees half a document;
// anything else (/dev/stderr, a FIFO) is written to.
func (t *Tool) writeStats() error {
	b, err := json.MarshalIndent(t.statsJSON(), "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(t.StatsFile, append(b, '\n'))
}

// WriteFileAtomic replaces the regular file at path (or a symbolic link's
// target) with data through a temporary file in the same directory renamed
// over it: a reader sees the old content or the new, never a mix. A path
// that exists and is not a regular file (/dev/stderr, a FIFO), or a file in
// a directory where no other file may be made, is written to directly.
func WriteFileAtomic(path string, data []byte) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		return os.WriteFile(path, data, 0o644)
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if errors.Is(err, fs.ErrPermission) {
		// A file one may write in a directory one may not: in place.
		return os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// startStatsWriter starts rewriting the stats file every StatsEvery, once,
// and publishing them (--stats-to).
func (t *Tool) startStatsWriter() {
	t.startPublisher()
	if t.StatsFile == "" || t.StatsEvery <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.writer != nil {
		return
	}
	w := &statsWriter{stop: make(chan struct{}), done: make(chan struct{})}
	t.writer = w
	go func() {
		defer close(w.done)
		tick := time.NewTicker(t.StatsEvery)
		defer tick.Stop()
		told := false
		for {
			// The first at once: a reader finds the file from the start.
			if err := t.writeStats(); err != nil && !told {
				told = true
				t.Printf("warning: %v", fmt.Errorf("write stats: %w", err))
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// stopStatsWriter stops the periodic writes (Finish writes the last).
func (t *Tool) stopStatsWriter() {
	t.mu.Lock()
	w := t.writer
	t.mu.Unlock()
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
}
