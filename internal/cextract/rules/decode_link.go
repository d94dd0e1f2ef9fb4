package rules

import (
	"fmt"
	"strings"

	"github.com/crawlutils/crawlutils/internal/linkfind"
)

func (d *decoder) link(n *node, i int) *Link {
	r := &Link{Pos: n.Pos, Unique: true, PriorityStep: DefaultPriorityStep}
	what := fmt.Sprintf("link rule %d", i+1)
	if j := n.index("name"); n.kind == mapNode && j >= 0 && n.vals[j].kind == scalarNode && n.vals[j].tag != nullTag {
		what = fmt.Sprintf("link rule %q", n.vals[j].src)
	}
	typeOK := true
	ok := d.fields(n, "link", what, func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				r.Name = s.Value
			}
		case "match":
			typeOK = d.match(v, &r.Match)
		case "select":
			f := d.field(&node{Pos: v.Pos, text: "select"}, v, what)
			if f.Fields != nil || f.Each != nil {
				d.errorf(v.Pos, "%s: select gives URLs: a selector, not fields", what)
			}
			r.Select = f
		case "allow":
			r.Allow = d.regexps(v, "allow")
		case "deny":
			r.Deny = d.regexps(v, "deny")
		case "allow_domains":
			r.AllowDomains = d.strings(v, "allow_domains")
		case "deny_domains":
			r.DenyDomains = d.strings(v, "deny_domains")
		case "restrict_css":
			r.RestrictCSS = d.strings(v, "restrict_css")
		case "restrict_xpath":
			r.RestrictXPath = d.strings(v, "restrict_xpath")
		case "tags":
			for _, s := range d.strings(v, "tags") {
				r.Tags = append(r.Tags, strings.ToLower(s.Value))
			}
		case "attrs":
			for _, s := range d.strings(v, "attrs") {
				r.Attrs = append(r.Attrs, strings.ToLower(s.Value))
			}
		case "kinds":
			list := d.strings(v, "kinds")
			for _, s := range list {
				k, err := linkfind.ParseKind(s.Value)
				if err != nil {
					d.errorf(s.Pos, "%s: kinds: %v", what, err)
					continue
				}
				r.Kinds |= k
			}
			if len(list) == 0 && v.kind == seqNode {
				d.errorf(v.Pos, "%s: kinds: give at least one of %s", what, strings.Join(linkfind.KindNames, ", "))
			}
		case "post_forms":
			r.PostForms = d.boolean(v, "post_forms")
		case "requests":
			r.Requests = d.boolean(v, "requests")
		case "render":
			r.Render = d.boolean(v, "render")
		case "deny_extensions":
			r.DenyExtensions = []string{}
			for _, s := range d.strings(v, "deny_extensions") {
				r.DenyExtensions = append(r.DenyExtensions, strings.TrimPrefix(strings.ToLower(s.Value), "."))
			}
		case "skip_nofollow":
			r.SkipNofollow = d.boolean(v, "skip_nofollow")
		case "canonicalize":
			r.Canonicalize = d.boolean(v, "canonicalize")
		case "unique":
			r.Unique = d.boolean(v, "unique")
		case "process":
			r.Process = d.processors(v, what)
		case "priority":
			if p, ok := d.integer(v, "priority"); ok {
				r.Priority = &p
			}
		case "priority_step":
			if p, ok := d.integer(v, "priority_step"); ok {
				r.PriorityStep = p
			}
		}
	})
	if !ok {
		return nil
	}
	if r.Select != nil && (len(r.RestrictCSS)+len(r.RestrictXPath)+len(r.Tags)+len(r.Attrs) > 0) {
		d.errorf(n.Pos, "%s: select picks the URLs itself: drop tags, attrs, restrict_css and restrict_xpath", what)
	}
	if r.Kinds != 0 && (r.Select != nil || len(r.Tags)+len(r.Attrs) > 0) {
		d.errorf(n.Pos, "%s: kinds picks the tags and attributes itself: drop tags, attrs and select", what)
	}
	if r.PostForms && r.Kinds&linkfind.Forms == 0 {
		d.errorf(n.Pos, "%s: post_forms: add forms (or all) to kinds", what)
	}
	if r.Select == nil && r.Match.Type != "" && r.Match.Type != HTML {
		d.errorf(n.Pos, "%s: links of %s responses come from a selector: add select (for JSON: select: {jq: .next})", what, r.Match.Type)
	}
	if !typeOK {
		return nil
	}
	return r
}

func (d *decoder) sitemap(n *node, i int) *Sitemap {
	r := &Sitemap{Pos: n.Pos}
	ok := d.fields(n, "sitemap", fmt.Sprintf("sitemap rule %d", i+1), func(key string, v *node) {
		switch key {
		case "name":
			if s, ok := d.str(v, "name"); ok {
				r.Name = s.Value
			}
		case "match":
			d.match(v, &r.Match)
			if r.Match.Type != "" && r.Match.Type != XML {
				d.errorf(v.Pos, "sitemap rule: match.type is xml or not given")
			}
		case "follow":
			r.Follow = d.regexps(v, "follow")
		case "allow":
			r.Allow = d.regexps(v, "allow")
		case "deny":
			r.Deny = d.regexps(v, "deny")
		case "alternate":
			r.Alternate = d.boolean(v, "alternate")
		case "lastmod_after":
			r.LastmodAfter, _ = d.date(v, "lastmod_after")
		case "lastmod_before":
			r.LastmodBefore, _ = d.date(v, "lastmod_before")
		}
	})
	if !ok {
		return nil
	}
	return r
}
