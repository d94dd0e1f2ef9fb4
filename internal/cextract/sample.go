package cextract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// sample is one stored page, a response record, run through the rules
// outside the stream: for contracts (--test) and the interactive session
// (--shell).
type sample struct {
	name string // where the record came from, for messages
	raw  []byte // the response record
	url  string // its final URL
}

// produced is what the rules made of a sample: its items, the URLs of its
// follow-up requests, and what cextract said about it on stderr.
type produced struct {
	items []producedItem
	links []string
	msgs  string
	recs  [][]byte // every record written, in order (no ack)
}

type producedItem struct {
	typ  string
	data map[string]json.RawMessage
	raw  json.RawMessage
}

// loadSample reads the first response record of the file path.
func loadSample(path string) (*sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSample(path, f)
}

// readSample reads the first response record of r, name is for messages.
// Its lines are read as every input is (ndjson.Reader): a byte order mark
// at the very start is skipped, CRLF line ends are taken, and a line is
// at most ndjson.DefaultMaxLine long.
func readSample(name string, r io.Reader) (*sample, error) {
	lines := ndjson.NewReader(nil, r)
	for {
		line, err := lines.Next()
		var le *ndjson.LineError
		switch {
		case err == io.EOF:
			return nil, fmt.Errorf("%s: no response record (cfetch's output: {\"kind\":\"response\",…})", name)
		case errors.As(err, &le):
			return nil, fmt.Errorf("%s:%d: %v", name, le.Line.Num, le.Err)
		case err != nil: // "read <stdin>: …": say which file instead
			if u := errors.Unwrap(err); u != nil {
				err = u
			}
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		t := bytes.TrimSpace(line.Bytes)
		if len(t) == 0 {
			continue
		}
		var resp record.Response
		if jerr := json.Unmarshal(t, &resp); jerr != nil {
			return nil, fmt.Errorf("%s:%d: invalid record: %v", name, line.Num, jerr)
		}
		if resp.Kind == record.KindResponse {
			return &sample{name: name, raw: t, url: resp.URL}, nil
		}
	}
}

// run applies x to the sample, explaining it to explain when not nil.
func (s *sample) run(x *engine, explain *explainer) produced {
	var out, msgs bytes.Buffer
	tool := cli.NewTool("cextract", &msgs)
	tool.Quiet = true
	p := &processor{tool: tool, w: ndjson.NewWriter(&out), x: x, explain: explain}
	env, fields, err := record.ParseFields(s.raw)
	if err != nil {
		return produced{msgs: fmt.Sprintf("cextract: %s: invalid record: %v\n", s.name, err)}
	}
	p.handle(ndjson.Line{Source: s.name, Num: 1, Bytes: s.raw}, env, fields)
	if err := p.w.Flush(); err != nil {
		fmt.Fprintf(&msgs, "cextract: %v\n", err)
	}
	res := produced{msgs: msgs.String()}
	for _, line := range bytes.Split(out.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var rec struct {
			Kind string                     `json:"kind"`
			Type string                     `json:"type"`
			URL  string                     `json:"url"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		switch rec.Kind {
		case record.KindItem:
			var raw struct {
				Data json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(line, &raw)
			res.items = append(res.items, producedItem{typ: rec.Type, data: rec.Data, raw: raw.Data})
		case record.KindRequest:
			res.links = append(res.links, rec.URL)
		case record.KindAck:
			continue
		}
		res.recs = append(res.recs, line)
	}
	return res
}

// unreadable says why the rules would read nothing of the sample (a fetch
// error, a status other than 2xx, a binary body), or "".
func (s *sample) unreadable() string {
	_, fields, err := record.ParseFields(s.raw)
	if err != nil {
		return "invalid record: " + err.Error()
	}
	resp, req, err := decodeResponse(s.raw, fields)
	if err != nil {
		return "invalid record: " + err.Error()
	}
	if pg, skipped := newPage(s.raw, fields, resp, req); pg == nil {
		return skipText(skipped, resp)
	}
	return ""
}
