package cextract

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/filestore"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/fingerprint"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/policy"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Files with their items (an item rule's files:, Scrapy's FilesPipeline).
// An item whose files are all stored and up to date is written at once,
// with "files" added to its data. Otherwise it is not written yet: a
// request for its first file not up to date goes out instead, carrying the
// item whole in its files_item field (policy.FilesItemField), so that the
// item waits in the frontier, durable, and the file is fetched as any page
// is (robots.txt, per-host rates, the guard against internal addresses).
// The response of that request stores the file and either asks for the
// next file of the item, the same way, or writes the item. One file of an
// item is fetched at a time.

// filesItem is the value of a request's files_item: an item waiting for
// its files.
type filesItem struct {
	// Item is the item record, without its files.
	Item json.RawMessage `json:"item"`
	// Pending are the URLs still to settle, in the order of the item's
	// fields; the first is the request's own.
	Pending []string `json:"pending"`
	// Done are the files settled so far, in the same order.
	Done []filestore.File `json:"done"`
}

// filesPriorityStep is added to the page's priority for the requests of
// its items' files, so that items wait no longer than they must (pages
// found on the page get the page's priority less 10).
const filesPriorityStep = 10

// fileURLs returns the URLs of an item's file fields, in field order: each
// field's value, a string or a list of strings, resolved against base and
// written as Scrapy's Request writes its url (fingerprint.RequestURL), so
// that a file's name, the SHA-1 of its URL, is the one Scrapy gives it.
// What is not a string is left out.
func fileURLs(data []byte, fields []string, base *url.URL) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if base != nil {
			if u, err := base.Parse(s); err == nil {
				s = u.String()
			}
		}
		if r, err := fingerprint.RequestURL(s); err == nil {
			s = r
		}
		out = append(out, s)
	}
	for _, name := range fields {
		v := bytes.TrimSpace(obj[name])
		switch {
		case len(v) == 0:
		case v[0] == '"':
			var s string
			if json.Unmarshal(v, &s) == nil {
				add(s)
			}
		case v[0] == '[':
			var list []json.RawMessage
			json.Unmarshal(v, &list)
			for _, e := range list {
				var s string
				if json.Unmarshal(e, &s) == nil {
					add(s)
				}
			}
		}
	}
	return out
}

// fileURLProblem says why rawURL cannot be fetched, or "".
func fileURLProblem(rawURL string) string {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil:
		return "invalid URL: " + strings.TrimPrefix(err.Error(), "parse ")
	case u.Scheme != "http" && u.Scheme != "https":
		return "not an http or https URL"
	case u.Host == "":
		return "no host in the URL"
	}
	return ""
}

// itemFiles handles an item of a rule with files: its item record b (with
// its newline) is written when its files are settled, else it waits in a
// request for its first file.
func (p *processor) itemFiles(line ndjson.Line, r *itemRule, data, b []byte, pg *page) {
	fi := &filesItem{Item: bytes.TrimSuffix(b, []byte("\n")), Pending: fileURLs(data, r.files, pg.base()), Done: []filestore.File{}}
	p.settle(fi)
	if len(fi.Pending) > 0 {
		p.tool.Stats.Count("items", "awaiting_files", 1)
	}
	parent := pg.req
	p.finishFiles(line, fi, parent, parent.Priority+filesPriorityStep, parent.Depth+1, pg.url)
}

// fileResponse handles the response to a request for a file of an item:
// the file is stored (or its failure noted), then the item's next file is
// requested or the item written.
func (p *processor) fileResponse(line ndjson.Line, resp *record.Response, req *record.Request, quoted []byte) {
	st := p.tool.Stats
	st.Count("responses", "file", 1)
	var fi filesItem
	err := json.Unmarshal(req.Extra[policy.FilesItemField], &fi)
	if err == nil && len(fi.Item) == 0 {
		err = errors.New("no item")
	}
	if err != nil {
		p.tool.Printf("%s: invalid %s of the request: %v", line.Pos(), policy.FilesItemField, err)
		st.Error("files_item")
		p.tool.MarkPartial()
		return
	}
	if len(fi.Pending) > 0 { // else a request someone made by hand: the item as it is
		u := fi.Pending[0]
		fi.Pending = fi.Pending[1:]
		fi.Done = append(fi.Done, p.storeFile(line, u, resp, quoted))
	}
	p.settle(&fi)
	p.finishFiles(line, &fi, req, req.Priority, req.Depth, req.Referer)
}

// settle settles the pending files it can without fetching: a URL that
// cannot be fetched (an error entry), a file stored and up to date.
func (p *processor) settle(fi *filesItem) {
	st := p.tool.Stats
	for len(fi.Pending) > 0 {
		u := fi.Pending[0]
		if why := fileURLProblem(u); why != "" {
			fi.Done = append(fi.Done, filestore.File{URL: u, Status: filestore.Error, Error: why})
			st.Count("files", "error", 1)
		} else if p.files == nil {
			return // answered by storeFile when the response comes
		} else if f, ok := p.files.Fresh(u); ok {
			fi.Done = append(fi.Done, f)
			st.Count("files", filestore.UpToDate, 1)
		} else {
			return
		}
		fi.Pending = fi.Pending[1:]
	}
}

// finishFiles writes the item when no file is pending, else a request for
// its next file, inheriting parent's crawl.
func (p *processor) finishFiles(line ndjson.Line, fi *filesItem, parent *record.Request, priority, depth int, referer string) {
	st := p.tool.Stats
	if len(fi.Pending) == 0 {
		b, err := itemWithFiles(fi.Item, fi.Done)
		if err != nil {
			p.tool.Printf("%s: invalid item in %s: %v", line.Pos(), policy.FilesItemField, err)
			st.Error("files_item")
			p.tool.MarkPartial()
			return
		}
		p.out = append(p.out, b)
		st.Count("items", "emitted", 1)
		p.pageItems++
		return
	}
	v, err := marshalNoEscape(fi)
	if err != nil {
		p.tool.Printf("%s: cannot encode %s: %v", line.Pos(), policy.FilesItemField, err)
		st.Error("encode")
		p.tool.MarkPartial()
		return
	}
	req := record.Request{
		Kind: record.KindRequest, URL: fi.Pending[0], Referer: referer, DontFilter: true,
		Priority: min(max(priority, record.MinPriority), record.MaxPriority), Depth: depth,
		CrawlID: parent.CrawlID, AppID: parent.AppID, SpiderID: parent.SpiderID,
		MaxDepth: parent.MaxDepth, AllowedDomains: parent.AllowedDomains, AllowRegex: parent.AllowRegex,
		DenyRegex: parent.DenyRegex, DenyExtensions: parent.DenyExtensions, Expires: parent.Expires,
		UserAgent: parent.UserAgent, Attrs: parent.Attrs,
		Extra: map[string]json.RawMessage{policy.FilesItemField: v},
	}
	if round := parent.Extra["round"]; validRound(round) {
		req.Extra["round"] = round
	}
	p.encode(line, &req)
	st.Count("requests", "file", 1)
}

// storeFile stores the file of rawURL from its response and returns its
// entry: downloaded, or an error saying why not.
func (p *processor) storeFile(line ndjson.Line, rawURL string, resp *record.Response, quoted []byte) filestore.File {
	st := p.tool.Stats
	fail := func(why string) filestore.File {
		st.Count("files", "error", 1)
		return filestore.File{URL: rawURL, Status: filestore.Error, Error: why}
	}
	switch {
	case resp.Error != "":
		why := resp.Error
		if resp.ErrorDetail != "" {
			why += ": " + resp.ErrorDetail
		}
		return fail(why)
	case resp.Status != 0 && (resp.Status < 200 || resp.Status > 299):
		return fail(fmt.Sprintf("status %d", resp.Status))
	case p.files == nil:
		return fail("not stored: cextract runs without --files-dir")
	}
	r, closeBody, err := fileBody(resp, quoted)
	if err != nil {
		return fail("body: " + err.Error())
	}
	f, err := p.files.Write(rawURL, r)
	closeBody()
	if err != nil {
		p.tool.Printf("%s: --files-dir: %s: %v", line.Pos(), rawURL, err)
		p.tool.MarkPartial()
		return fail("not stored: " + err.Error())
	}
	st.Count("files", filestore.Downloaded, 1)
	return f
}

// fileBody opens the body of a file's response, in whichever form cfetch
// gave it: a file under --save-dir, base64 (binary), or text.
func fileBody(resp *record.Response, quoted []byte) (io.Reader, func(), error) {
	switch {
	case quoted != nil:
		return record.NewStringReader(quoted), func() {}, nil
	case resp.Body != "":
		return strings.NewReader(resp.Body), func() {}, nil
	case resp.BodyBase64 != "":
		return base64.NewDecoder(base64.StdEncoding, strings.NewReader(resp.BodyBase64)), func() {}, nil
	case resp.BodyPath != "":
		f, err := os.Open(resp.BodyPath)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	return strings.NewReader(""), func() {}, nil
}

// itemWithFiles returns the item record item (with a newline) with files
// added to its data as "files".
func itemWithFiles(item []byte, files []filestore.File) ([]byte, error) {
	var it record.Item
	if err := record.Decode(item, &it); err != nil {
		return nil, err
	}
	data := bytes.TrimSpace(it.Data)
	if len(data) < 2 || data[0] != '{' {
		return nil, errors.New("its data is not an object")
	}
	list, err := marshalNoEscape(files)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(data)+len(list)+16)
	out = append(out, data[:len(data)-1]...)
	if len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		out = append(out, ',')
	}
	out = record.AppendString(out, rules.FilesField)
	out = append(out, ':')
	out = append(out, list...)
	it.Data = append(out, '}')
	return record.Encode(&it)
}

// marshalNoEscape is json.Marshal that leaves <, > and & as they are, so
// that URLs stay readable.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
