package cextract

import "net/url"

// seenLinks is what a link extractor remembers of one page: the URLs it
// passed on (a link is passed once), and how each value it resolved
// ended, so that a value the page names again is not resolved again. A
// nil *seenLinks keeps duplicates and remembers nothing.
type seenLinks struct {
	urls map[string]bool
	refs map[refAt]refOutcome
}

// refAt is a link's value and the base it resolves against.
type refAt struct {
	base *url.URL
	ref  string
}

type refOutcome uint8

const (
	refNew         refOutcome = iota
	refKept                   // resolved: a second time, its URL is a duplicate
	refNotFollowed            // not http(s), or a fragment only
	refInvalid                // counted as invalid each time
)

func newSeenLinks(keepDuplicates bool) *seenLinks {
	if keepDuplicates {
		return nil
	}
	return &seenLinks{urls: map[string]bool{}, refs: map[refAt]refOutcome{}}
}

// ended records how ra ended; not for a form's link, whose URL is not the
// whole of what makes it a duplicate.
func (s *seenLinks) ended(ra refAt, o refOutcome, form bool) {
	if s != nil && !form {
		s.refs[ra] = o
	}
}
