package policy

// The reasons a request or link is refused by the crawl policy, as stats
// keys (dropped, refused) and the "reason" of a --rejects record.
const (
	ReasonMaxDepth   = "max_depth"   // depth > maxdepth
	ReasonOffsite    = "offsite"     // host outside allowed_domains
	ReasonNotAllowed = "not_allowed" // URL matches none of allow_regex
	ReasonDenied     = "denied"      // URL matches one of deny_regex
	ReasonExtension  = "extension"   // URL path ends with a denied extension
)

// oldReasons are the names cextract gave the same refusals before the
// vocabulary was one: a stats file or rejects file written then still
// reads right through Canonical.
var oldReasons = map[string]string{
	"maxdepth":        ReasonMaxDepth,
	"allowed_domains": ReasonOffsite,
	"allow_regex":     ReasonNotAllowed,
	"deny_regex":      ReasonDenied,
	"deny_extensions": ReasonExtension,
}

// Canonical returns the reason name for name, an old name (maxdepth,
// allowed_domains, allow_regex, deny_regex, deny_extensions) or a current
// one, and whether it is a crawl-policy reason at all.
func Canonical(name string) (string, bool) {
	if r, ok := oldReasons[name]; ok {
		return r, true
	}
	switch name {
	case ReasonMaxDepth, ReasonOffsite, ReasonNotAllowed, ReasonDenied, ReasonExtension:
		return name, true
	}
	return name, false
}
