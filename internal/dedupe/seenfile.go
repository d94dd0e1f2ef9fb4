package dedupe

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"strings"
)

// ReadSeenFile reads a Scrapy JOBDIR requests.seen file (what RFPDupeFilter
// writes: one request fingerprint per line, 40 hex digits) and calls fn for
// each fingerprint, in file order. Blank lines are skipped, surrounding
// white space ignored, upper-case hex accepted. A malformed line stops the
// reading with an error naming its line number; an error from fn stops it
// and is returned as it is.
func ReadSeenFile(r io.Reader, fn func(fp [20]byte) error) error {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		s, err := br.ReadString('\n')
		if t := strings.TrimSpace(s); t != "" {
			var fp [20]byte
			if len(t) != 40 {
				return fmt.Errorf("requests.seen:%d: not a fingerprint (want 40 hex digits, got %q)", line, snippet(t))
			}
			if _, herr := hex.Decode(fp[:], []byte(t)); herr != nil {
				return fmt.Errorf("requests.seen:%d: not a fingerprint (%v)", line, herr)
			}
			if ferr := fn(fp); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("requests.seen:%d: %w", line, err)
		}
	}
}

func snippet(s string) string {
	if len(s) > 50 {
		return s[:50] + "…"
	}
	return s
}

// WriteSeenFile writes fingerprints as Scrapy's RFPDupeFilter does: lower-case
// hex, one per line. It returns how many it wrote.
func WriteSeenFile(w io.Writer, fps iter.Seq[[20]byte]) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	var line [41]byte
	line[40] = '\n'
	for fp := range fps {
		hex.Encode(line[:40], fp[:])
		if _, err := bw.Write(line[:]); err != nil {
			return n, err
		}
		n++
	}
	return n, bw.Flush()
}
