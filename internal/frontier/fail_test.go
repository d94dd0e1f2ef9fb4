package frontier

import (
	"regexp"
	"strings"
	"testing"
)

func TestFailReason(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"invalid_record", "invalid_record"},
		{"Invalid record: nested too deep", "invalid_record_nested_too_deep"},
		{"too-large (12 MiB)", "too_large_12_mib"},
		{"__a__b__", "a_b"},
		{"Größe", "gr_e"},
		{"", DefaultFailReason},
		{" -:", DefaultFailReason},
		{strings.Repeat("a", 100), strings.Repeat("a", MaxReasonLen)},
		{strings.Repeat("a", MaxReasonLen-1) + " b", strings.Repeat("a", MaxReasonLen-1)},
		{strings.Repeat("a", MaxReasonLen-2) + " b", strings.Repeat("a", MaxReasonLen-2) + "_b"},
	} {
		if got := FailReason(c.in); got != c.want {
			t.Errorf("FailReason(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var reasonRE = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// FuzzFailReason: a stored reason is a short code of [a-z0-9_] that
// FailReason keeps as it is.
func FuzzFailReason(f *testing.F) {
	for _, s := range []string{"invalid_record", "Too Large!", "", "\xff\xfe", strings.Repeat("ab ", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := FailReason(s)
		if len(r) > MaxReasonLen || !reasonRE.MatchString(r) || FailReason(r) != r {
			t.Fatalf("FailReason(%q) = %q", s, r)
		}
	})
}
