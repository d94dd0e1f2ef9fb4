package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cextract/process"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/record"
)

// The interactive session (--shell, Scrapy's scrapy shell): one page,
// fetched with cfetch or read from a response record file, and selectors
// read line by line, each answered at once with what it selects. The
// selectors are those of rules files; the commands start with ":".

// shellHelp is what :help prints.
const shellHelp = `A line is a selector, as in a rules file: CSS (h1, .price::text, a::attr(href)),
XPath (//h1/text(), count(//a)), @url or @status (the response record), jq:EXPR
on a JSON page, re:REGEX on the whole body (its first group). Each value found
is printed as JSON, one per line. Commands:
  :rules FILE     apply a rules file to the page: its items and links, as records
  :explain [SEL]  why a field came out empty: the rules file's, or SEL's (default: the last selector)
  :fetch URL|FILE load another page
  :page           the page: URL, status, format, size
  :help           this text
  :quit           end (also Ctrl-D)`

// session is the state of an interactive session.
type session struct {
	ctx       context.Context
	out       io.Writer // answers
	errf      func(format string, a ...any)
	fetchArgs []string
	stderr    io.Writer // cfetch's messages

	page      *sample
	pg        *page // the page read, for completion
	format    rules.Format
	rules     *engine // from :rules, or nil
	rulesFile string
	last      string // the last selector
}

// load makes src — a URL to fetch with cfetch, or a response record file —
// the session's page.
func (s *session) load(src string) error {
	var smp *sample
	var err error
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		if smp, err = fetchOnce(s.ctx, src, s.fetchArgs, s.stderr); err == nil {
			smp.name = "<cfetch>"
		}
	} else {
		smp, err = loadSample(src)
	}
	if err != nil {
		return err
	}
	return s.loadSample(smp)
}

// loadSample makes smp the session's page.
func (s *session) loadSample(smp *sample) error {
	_, fields, err := record.ParseFields(smp.raw)
	if err != nil {
		return fmt.Errorf("%s: invalid record: %v", smp.name, err)
	}
	resp, req, err := decodeResponse(smp.raw, fields)
	if err != nil {
		return fmt.Errorf("%s: invalid record: %v", smp.name, err)
	}
	pg, skipped := newPage(smp.raw, fields, resp, req)
	if pg == nil {
		return fmt.Errorf("%s: %s", smp.name, skipText(skipped, resp))
	}
	s.page, s.pg, s.format = smp, pg, pg.format
	return nil
}

// describe is the :page line.
func (s *session) describe() string {
	var r record.Response
	_ = json.Unmarshal(s.page.raw, &r)
	return fmt.Sprintf("%s  status %d, %s, %d bytes (%s)", s.page.url, r.Status, s.format, len(r.Body), s.page.name)
}

// line handles one line of input; it returns false on :quit.
func (s *session) line(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasPrefix(text, "#") {
		return true
	}
	cmd, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case ":quit", ":q", ":exit":
		return false
	case ":help", ":h", ":?":
		fmt.Fprintln(s.out, shellHelp)
	case ":page":
		fmt.Fprintln(s.out, s.describe())
	case ":fetch":
		if arg == "" {
			s.errf(":fetch: give a URL or a response record file")
			break
		}
		if err := s.load(arg); err != nil {
			s.errf(":fetch: %v", err)
			break
		}
		fmt.Fprintln(s.out, s.describe())
	case ":rules":
		s.applyRules(arg)
	case ":explain":
		s.explain(arg)
	default:
		if strings.HasPrefix(cmd, ":") {
			s.errf("%s: no such command (:help lists them)", cmd)
			break
		}
		s.selectValues(text)
	}
	return true
}

// selectorEngine compiles sel as the one field "value" (every value, as
// the list Scrapy's .getall() gives) of an item rule reading the page's
// format.
func (s *session) selectorEngine(sel string) (*engine, error) {
	src := &rules.Source{Lang: rules.Auto, Src: sel}
	var chain process.Chain
	switch {
	case strings.HasPrefix(sel, "jq:"):
		src = &rules.Source{Lang: rules.JQ, Src: sel[len("jq:"):]}
	case strings.HasPrefix(sel, "re:"):
		re, err := process.CompileRegexp(sel[len("re:"):])
		if err != nil {
			return nil, err
		}
		src = &rules.Source{Lang: rules.Body, Src: sel[len("re:"):]}
		chain = process.Chain{process.RegexProc(re)}
	}
	var errs []error
	fs := compileFields("", "", "", []*rules.Field{{Name: "value", Source: src, All: true, Process: chain}}, s.format, nil, func(err error) {
		var re *rules.Error
		if errors.As(err, &re) {
			err = errors.New(strings.TrimPrefix(re.Msg, `, field "value": `))
		}
		errs = append(errs, err)
	})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return &engine{items: []*itemRule{{name: sel, match: matcher{format: s.format}, fields: fs}}}, nil
}

// selectValues prints each value sel selects on the page.
func (s *session) selectValues(sel string) {
	x, err := s.selectorEngine(sel)
	if err != nil {
		s.errf("%s: %v", sel, err)
		return
	}
	s.last = sel
	got := s.page.run(x, nil)
	s.relay(got.msgs)
	if len(got.items) == 0 {
		fmt.Fprintln(s.out, "(nothing: :explain says why)")
		return
	}
	var vals []json.RawMessage
	_ = json.Unmarshal(got.items[0].data["value"], &vals)
	for _, v := range vals {
		fmt.Fprintf(s.out, "%s\n", v)
	}
}

// applyRules runs the rules file name on the page and prints its records.
func (s *session) applyRules(name string) {
	if name == "" {
		s.errf(":rules: give a rules file")
		return
	}
	x, err := loadRules(name)
	if err != nil {
		var es rules.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				s.errf("%v", e)
			}
			return
		}
		s.errf(":rules: %v", err)
		return
	}
	s.rules, s.rulesFile = x, name
	got := s.page.run(x, nil)
	s.relay(got.msgs)
	for _, r := range got.recs {
		fmt.Fprintf(s.out, "%s\n", r)
	}
	fmt.Fprintf(s.out, "(%d item(s), %d link(s))\n", len(got.items), len(got.links))
}

// explain explains sel, else the rules file of :rules, else the last
// selector.
func (s *session) explain(sel string) {
	x, file := s.rules, s.rulesFile
	if sel == "" && x == nil {
		sel = s.last
	}
	if sel != "" {
		var err error
		if x, err = s.selectorEngine(sel); err != nil {
			s.errf("%s: %v", sel, err)
			return
		}
		file = ""
	}
	if x == nil {
		s.errf(":explain: nothing to explain yet: type a selector or :rules FILE first")
		return
	}
	var b bytes.Buffer
	got := s.page.run(x, &explainer{w: &b, file: file})
	s.relay(got.msgs)
	_, _ = s.out.Write(b.Bytes())
}

// relay passes on what extracting said (a selector that failed on the page).
func (s *session) relay(msgs string) {
	for _, l := range strings.Split(strings.TrimSpace(msgs), "\n") {
		if l != "" {
			s.errf("%s", strings.TrimPrefix(l, "cextract: "))
		}
	}
}
