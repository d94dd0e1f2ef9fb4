package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Discovery of the known files: a request whose "discover" field lists
// "robots" or "sitemaps" asks the frontier to queue, once per host of its
// crawl, the host's /robots.txt (whose Sitemap: lines sitemap rules read)
// or /sitemap.xml. Follow-ups inherit the field, as they inherit the rest
// of the crawl policy. cqueue push queues the files; cextract passes the
// field on.

// DiscoverField is the request field that asks for discovery.
const DiscoverField = "discover"

// DiscoverNames are the values of the discover field, in their order.
var DiscoverNames = []string{"robots", "sitemaps"}

// DiscoverPath is the path of the file each name queues.
var DiscoverPath = map[string]string{"robots": "/robots.txt", "sitemaps": "/sitemap.xml"}

// ParseDiscover reads a --discover flag: names separated by commas
// (repeated flags are joined), each one of DiscoverNames; the result is in
// DiscoverNames' order, each name once.
func ParseDiscover(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if !slices.Contains(DiscoverNames, name) {
				return nil, fmt.Errorf("unknown %q (want %s)", name, strings.Join(DiscoverNames, ", "))
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(DiscoverNames, a) - slices.Index(DiscoverNames, b) })
	return out, nil
}

// Discover reads a request's discover field (raw JSON, nil when absent):
// a list of DiscoverNames.
func Discover(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		return nil, fmt.Errorf("%s: want a list of %s", DiscoverField, strings.Join(DiscoverNames, ", "))
	}
	for _, n := range names {
		if !slices.Contains(DiscoverNames, n) {
			return nil, fmt.Errorf("%s: unknown %q (want %s)", DiscoverField, n, strings.Join(DiscoverNames, ", "))
		}
	}
	return names, nil
}
