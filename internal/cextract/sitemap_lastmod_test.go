package cextract

import (
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/rules"
)

// TestLastmodInEveryW3CForm: lastmod_after and lastmod_before read a
// sitemap's <lastmod> in each form of W3C datetime the sitemap protocol
// allows (YYYY, YYYY-MM, YYYY-MM-DD, with hh:mm, :ss and fractions, and a
// zone), its offset counted. The year alone did not parse, so the entry was
// kept whatever its year.
func TestLastmodInEveryW3CForm(t *testing.T) {
	s := compileSitemapRule(&rules.Sitemap{
		LastmodAfter:  rules.String{Value: "2024-01-01"},
		LastmodBefore: rules.String{Value: "2025-01-01"},
	})
	for _, tt := range []struct {
		lastmod string
		kept    bool
	}{
		{"2023", false},
		{"2024", true},
		{"2025", false},
		{"2023-12", false},
		{"2024-06", true},
		{"2023-12-31", false},
		{"2024-06-30", true},
		{"2024-01-01T00:30+01:00", false}, // 2023-12-31T23:30Z
		{"2024-01-01T00:30Z", true},
		{"2024-12-31T23:59:59-01:00", false}, // 2025-01-01T00:59:59Z
		{"2024-06-30T10:11:12.345+02:00", true},
		{"2023-12-31T23:59:59.999Z", false},
		{" 2024-06-30 ", true},
		{"", true},     // no lastmod: kept
		{"soon", true}, // not a date: kept
	} {
		if got := s.lastmodOK(tt.lastmod); got != tt.kept {
			t.Errorf("lastmod %q: kept %v, want %v", tt.lastmod, got, tt.kept)
		}
	}
}
