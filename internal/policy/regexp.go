package policy

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Regexp compiles an allow_regex or deny_regex pattern (Go's RE2 syntax),
// once: the compiled patterns of the crawls seen are shared, since every
// follow-up request carries the same ones. The error names the pattern.
func Regexp(pat string) (*regexp.Regexp, error) {
	regexMu.Lock()
	defer regexMu.Unlock()
	if r, ok := regexCache[pat]; ok {
		return r.re, r.err
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		err = fmt.Errorf("invalid regular expression %q: %v", pat, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if len(regexCache) >= regexCacheMax {
		clear(regexCache)
	}
	regexCache[pat] = regexResult{re, err}
	return re, err
}

var (
	regexMu    sync.Mutex
	regexCache = map[string]regexResult{}
)

type regexResult struct {
	re  *regexp.Regexp
	err error
}

const regexCacheMax = 1024
