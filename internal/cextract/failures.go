package cextract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/crawlutils/crawlutils/internal/record"
)

// failure is a record of --failures FILE: a page that failed (a fetch
// error, a status other than 2xx) or whose items were dropped (a required
// field missing), with the page that linked it. Scrapy logs each such
// response with its referer; this is that log as data.
type failure struct {
	Kind        string `json:"kind"` // "failure"
	URL         string `json:"url"`  // the page, after redirects
	Status      int    `json:"status,omitempty"`
	Error       string `json:"error,omitempty"`
	ErrorDetail string `json:"error_detail,omitempty"`
	// Reason is the error code (timeout, dns, …), status_NNN, or the
	// reason items were dropped (missing_field, with Rule and Fields).
	Reason string   `json:"reason"`
	Rule   string   `json:"rule,omitempty"`
	Fields []string `json:"fields,omitempty"`
	// RequestURL is the URL requested, when a redirect led elsewhere.
	RequestURL string `json:"request_url,omitempty"`
	Referer    string `json:"referer,omitempty"`
	CrawlID    string `json:"crawlid,omitempty"`
}

// failedFetch writes the failure record of a response with an error or a
// status other than 2xx (skip is why newPageFrom skipped it); others are
// not failures.
func (p *processor) failedFetch(resp *record.Response, req *record.Request, skip string) {
	f := failure{Status: resp.Status, Error: resp.Error, ErrorDetail: resp.ErrorDetail}
	switch skip {
	case "skipped_error":
		f.Reason = resp.Error
	case "skipped_status":
		if discoveredMissing(resp, req) {
			return
		}
		f.Reason = "status_" + strconv.Itoa(resp.Status)
	case skippedTooLarge, skippedBadGzip:
		f.Reason = skip
	default:
		return
	}
	p.writeFailure(f, resp, req)
}

// droppedItems writes the failure record of a page whose items rule
// dropped items for want of their required fields (missing: the first
// missing field of each).
func (p *processor) droppedItems(resp *record.Response, req *record.Request, rule string, missing []string) {
	var fields []string
	for _, m := range missing {
		if !slices.Contains(fields, m) {
			fields = append(fields, m)
		}
	}
	p.writeFailure(failure{Status: resp.Status, Reason: "missing_field", Rule: rule, Fields: fields}, resp, req)
}

func (p *processor) writeFailure(f failure, resp *record.Response, req *record.Request) {
	if p.failures == nil {
		return
	}
	f.Kind = "failure"
	f.URL = pageURL(resp, req)
	if req != nil {
		if req.URL != "" && req.URL != f.URL {
			f.RequestURL = req.URL
		}
		f.Referer, f.CrawlID = req.Referer, req.CrawlID
	}
	b, err := json.Marshal(f)
	if err == nil {
		err = p.failures.WriteLine(b)
	}
	if err != nil {
		p.failWrite(fmt.Errorf("--failures: %w", err))
	}
}
