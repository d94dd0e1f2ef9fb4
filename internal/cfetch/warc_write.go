package cfetch

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/warc"
)

// archive is --warc: the WARC files every exchange cfetch makes on the
// network is written to, as a request and a response record (a revisit
// record for a 304).
type archive struct {
	w        *warc.Writer
	max      int64 // bytes of an exchange kept each way; 0: no limit
	records  atomic.Int64
	failed   atomic.Bool
	writeErr atomic.Value // the first write error, an error
}

// openArchive starts --warc: its first file, and the transport's
// recording connections.
func (f *Fetcher) openArchive() error {
	o := f.opts
	if o.WARC == "" {
		return nil
	}
	host, _ := os.Hostname()
	info := []warc.Field{
		{Name: "software", Value: "crawlutils cfetch " + cli.Version},
		{Name: "format", Value: "WARC File Format 1.1"},
		{Name: "conformsTo", Value: "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{Name: "hostname", Value: host},
		{Name: "http-header-user-agent", Value: o.UserAgent},
		{Name: "robots", Value: map[bool]string{true: "obey", false: "ignore"}[o.RobotsObey]},
		{Name: "operating-system", Value: runtime.GOOS},
	}
	w, err := warc.Create(o.WARC, warc.WriterOptions{MaxSize: o.WARCMaxSize, Info: info})
	if err != nil {
		return fmt.Errorf("--warc: %v", err)
	}
	a := &archive{w: w}
	if o.MaxSize > 0 {
		a.max = 2*o.MaxSize + 1<<20 // the wire limit, and headers
	}
	f.archive = a
	recordConnections(f.transport)
	return nil
}

// closeArchive closes the current WARC file.
func (f *Fetcher) closeArchive() error {
	if f.archive == nil {
		return nil
	}
	if err := f.archive.w.Close(); err != nil {
		return fmt.Errorf("--warc: %v", err)
	}
	if err, _ := f.archive.writeErr.Load().(error); err != nil {
		return fmt.Errorf("--warc: %v", err)
	}
	return nil
}

// startCapture returns ctx with the capture of one exchange, or ctx and
// nil without --warc.
func (f *Fetcher) startCapture(ctx context.Context) (context.Context, *capture) {
	if f.archive == nil {
		return ctx, nil
	}
	c := &capture{max: f.archive.max}
	return c.trace(ctx), c
}

// archiveExchange writes the records of an exchange whose response came:
// called once its body has been read (or given up), before the body is
// closed. A response cfetch stopped reading is marked WARC-Truncated.
func (f *Fetcher) archiveExchange(c *capture, j *job, target string, status int, fe *FetchError) {
	c.detach()
	if c.unrecorded != "" {
		j.warnings = append(j.warnings, c.unrecorded)
		return
	}
	if !c.attached {
		return
	}
	a := f.archive
	resp := warc.New(warc.TypeResponse, c.start, c.resp.Bytes())
	resp.Set("WARC-Target-URI", target)
	req := warc.New(warc.TypeRequest, c.start, c.req.Bytes())
	req.Set("WARC-Target-URI", target)
	if c.ip != "" {
		resp.Set("WARC-IP-Address", c.ip)
		req.Set("WARC-IP-Address", c.ip)
	}
	resp.Set("Content-Type", "application/http;msgtype=response")
	req.Set("Content-Type", "application/http;msgtype=request")
	if i, ok := warc.PayloadOffset(c.resp.Bytes()); ok {
		resp.Set("WARC-Payload-Digest", warc.Digest(c.resp.Bytes()[i:]))
	}
	switch {
	case c.cut:
		resp.Set("WARC-Truncated", "length")
	case c.eof || status == http.StatusNotModified || status == http.StatusNoContent || j.method == http.MethodHead:
		// Read to its end: the record is whole, whatever cfetch made of
		// the body (one that does not decode, one over --max-size).
	case fe != nil && fe.Code == ErrTooLarge:
		resp.Set("WARC-Truncated", "length")
	case fe != nil && fe.Code == ErrTimeout:
		resp.Set("WARC-Truncated", "time")
	case fe != nil && (fe.Code == ErrDecode || fe.Code == ErrProtocol):
		resp.Set("WARC-Truncated", "unspecified") // cfetch stopped at bytes it could not use
	case fe != nil:
		resp.Set("WARC-Truncated", "disconnect")
	default:
		resp.Set("WARC-Truncated", "length") // a redirect's body, not read whole
	}
	if status == http.StatusNotModified {
		// RFC 9111 revalidation: the page is as the cache has it.
		resp.Set("WARC-Type", warc.TypeRevisit)
		resp.Set("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified")
		resp.Set("WARC-Refers-To-Target-URI", target)
		resp.Set("WARC-Truncated", "")
		resp.Set("WARC-Payload-Digest", "") // it has no payload: the page's is in the record it refers to
		resp.Fields = dropEmpty(resp.Fields)
	}
	req.Set("WARC-Concurrent-To", resp.Get("WARC-Record-ID"))
	resp.Set("WARC-Concurrent-To", req.Get("WARC-Record-ID"))
	if err := a.w.Write(req, resp); err != nil {
		if a.failed.CompareAndSwap(false, true) {
			a.writeErr.Store(err)
		}
		j.warnings = append(j.warnings, fmt.Sprintf("not recorded in the WARC file: %v", err))
		return
	}
	a.records.Add(2)
	j.warcID = resp.Get("WARC-Record-ID")
}

func dropEmpty(fs []warc.Field) []warc.Field {
	out := fs[:0]
	for _, f := range fs {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}
