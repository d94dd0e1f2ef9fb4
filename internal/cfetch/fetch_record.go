package cfetch

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// record is the response record of a finished job. It takes out's body
// (the response releases it once its line is made).
func (f *Fetcher) record(j *job, out *outcome) *response {
	end := f.now()
	start := j.started
	if start.IsZero() {
		start = end
	}
	resp := &record.Response{
		Kind:         record.KindResponse,
		URL:          out.url,
		Request:      json.RawMessage(j.raw),
		Status:       out.status,
		Headers:      flattenHeaders(out.header),
		Redirects:    j.redirects,
		Retries:      j.req.Retries + j.retries,
		LatencyMS:    millis(out.latency),
		DurationMS:   millis(end.Sub(start)),
		FetchedAt:    end.UTC().Format(timeLayout),
		Unchanged:    out.unchanged,
		Cached:       out.cached,
		WARCRecordID: j.warcID,
	}
	if out.err != nil {
		resp.Error, resp.ErrorDetail = out.err.Code, out.err.Detail
	}
	r := &response{Response: resp}
	if out.body != nil {
		r.body, out.body = out.body, nil
		r.res = r.body.res
		f.fillBody(r, out.header, out.url, policy.Exempt(&j.req))
	}
	resp.Warnings = append(resp.Warnings, j.warnings...)
	return r
}

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// failed is the record of a request that could not be sent at all.
func (f *Fetcher) failed(req *record.Request, u string, raw []byte, fe *FetchError) *record.Response {
	return &record.Response{
		Kind: record.KindResponse, URL: u, Request: json.RawMessage(raw),
		Retries: req.Retries, FetchedAt: f.now().UTC().Format(timeLayout),
		Error: fe.Code, ErrorDetail: fe.Detail,
	}
}

// fillBody sets the body fields of r from its body: UTF-8 text, bytes for
// base64, or a file under --save-dir. Text already in UTF-8 is not
// copied; converted text is held in the budget, and the body it was
// converted from given back. The body of a file of an item (raw: its
// request has a files_item) is kept as the server sent it, never
// converted, whatever its type: cextract stores it byte for byte.
func (f *Fetcher) fillBody(r *response, header http.Header, u string, raw bool) {
	b := r.body
	r.Size = int64(len(b.data))
	r.Warnings = append(r.Warnings, b.warnings...)
	if len(b.data) == 0 {
		r.dropBody()
		return
	}
	media, declared, _ := mediaTypeOf(header, b.data)
	if b.encoded || !isTextMedia(media) || raw {
		if f.opts.SaveDir != "" {
			path, err := saveBody(f.opts.SaveDir, b.data, media, u)
			if err == nil {
				r.BodyPath = path
				r.dropBody()
				return
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("not saved to --save-dir: %v", err))
		}
		r.bin = b.data
		return
	}
	d := decideCharset(b.data, declared, record.IsHTML(media), isXMLMedia(media))
	r.Encoding, r.EncodingSource = d.name, d.source
	r.Warnings = append(r.Warnings, d.warnings...)
	if text, ok := utf8Text(d, b.data); ok {
		r.text = text
		return
	}
	size := int64(decodedSize(d, b.data))
	r.res.growWait(size)
	r.text = decodeText(d, b.data)
	if c := int64(cap(r.text)); c > size {
		r.res.growWait(c - size) // the estimate was short
	} else {
		r.res.shrink(size - c)
	}
	r.body.release()
	r.body = nil
}
