package cfetch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes parseSize accepts, longest first. K, M and G
// are binary (as in Scrapy's examples and most tools); KB, MB and GB are
// decimal.
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// parseSize parses a byte count such as 1048576, 512KiB, 32MiB, 1.5G or
// 10MB.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if t == "" {
		return 0, fmt.Errorf("invalid size %q (want bytes, or a number with KiB, MiB, GiB, KB, MB or GB)", s)
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && mult == 1 {
		if n < 0 {
			return 0, fmt.Errorf("invalid size %q: negative", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !plainDecimal(t) {
		return 0, fmt.Errorf("invalid size %q (want bytes, or a number with KiB, MiB, GiB, KB, MB or GB)", s)
	}
	if f < 0 {
		return 0, fmt.Errorf("invalid size %q: negative", s)
	}
	v := f * mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return int64(v), nil
}

// plainDecimal reports whether s is digits with at most one decimal point
// and an optional leading minus (no exponents, hex, NaN or underscores).
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	digits, dot := 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// formatSize writes n the way parseSize reads it, exactly.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// sizeValue is a pflag.Value for byte sizes.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil {
		return "0"
	}
	return formatSize(*v.p)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v sizeValue) Type() string { return "size" }
