package demosite

import (
	"html"
	"strconv"
	"strings"
)

const siteName = "Crawlutils Demo Store"

var esc = html.EscapeString

// rel returns the relative reference from a document whose base directory
// is fromDir (a path ending in "/") to target (an absolute path), the way
// a static site generator writes links: "../../catalogue/x_1/", "page-2.html",
// "./".
func rel(fromDir, target string) string {
	from := strings.Split(strings.Trim(fromDir, "/"), "/")
	if fromDir == "/" {
		from = nil
	}
	dirPart, file := target[:strings.LastIndex(target, "/")+1], target[strings.LastIndex(target, "/")+1:]
	to := strings.Split(strings.Trim(dirPart, "/"), "/")
	if dirPart == "/" {
		to = nil
	}
	common := 0
	for common < len(from) && common < len(to) && from[common] == to[common] {
		common++
	}
	var b strings.Builder
	for range len(from) - common {
		b.WriteString("../")
	}
	for _, seg := range to[common:] {
		b.WriteString(seg)
		b.WriteByte('/')
	}
	b.WriteString(file)
	if b.Len() == 0 {
		return "./"
	}
	return b.String()
}

// dirOf returns the directory part of path p ("/a/b.html" → "/a/").
func dirOf(p string) string { return p[:strings.LastIndex(p, "/")+1] }

// page accumulates one HTML document. dir is the directory relative links
// are written against (the <base href> when there is one).
type page struct {
	strings.Builder
	s   *Site
	dir string
}

func (s *Site) newPage(dir string) *page {
	p := &page{s: s, dir: dir}
	p.Grow(12 << 10)
	return p
}

func (p *page) w(parts ...string) {
	for _, x := range parts {
		p.WriteString(x)
	}
}

// link returns the relative reference to target from the page.
func (p *page) link(target string) string { return rel(p.dir, target) }

func mediaPath(id int) string { return "/media/" + strconv.Itoa(id) + ".jpg" }
