package policy

import (
	"bytes"

	"github.com/crawlutils/crawlutils/internal/record"
)

// FilesItemField is the request field that carries an item waiting for its
// files (cextract --files-dir, an item rule's files:): the request is for
// one of those files, and the field holds the item and the files still to
// fetch (docs/records.md).
const FilesItemField = "files_item"

// Exempt reports whether req is exempt from the crawl policy: a request
// for a file of an item (it has a FilesItemField object). Such a request is
// not a link the crawl follows but a part of an item already extracted, as
// Scrapy's FilesPipeline downloads bypass the spider's rules: images live
// on other hosts (allowed_domains), always have a denied extension
// (IGNORED_EXTENSIONS) and may sit one level below maxdepth. Everything
// else still applies to it: the request schema, expires, robots.txt and
// the fetcher's limits.
func Exempt(req *record.Request) bool {
	v := bytes.TrimSpace(req.Extra[FilesItemField])
	return len(v) > 0 && v[0] == '{'
}
