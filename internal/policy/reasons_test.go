package policy

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"maxdepth": ReasonMaxDepth, "allowed_domains": ReasonOffsite, "allow_regex": ReasonNotAllowed,
		"deny_regex": ReasonDenied, "deny_extensions": ReasonExtension,
		ReasonMaxDepth: ReasonMaxDepth, ReasonOffsite: ReasonOffsite, ReasonNotAllowed: ReasonNotAllowed,
		ReasonDenied: ReasonDenied, ReasonExtension: ReasonExtension,
	} {
		if got, ok := Canonical(in); got != want || !ok {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got, ok := Canonical("duplicate"); got != "duplicate" || ok {
		t.Errorf("Canonical(duplicate) = %q, %v", got, ok)
	}
}
