package stage

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/pctk/pctk/core"
)

// DimRange is one limit of PDAL's range syntax, "Z[0:100]",
// "Classification![7:7]", "Intensity(10:]": a dimension, bounds each
// inclusive ([ ]) or exclusive (( )), either left out for no bound, and
// "!" after the name to negate. It follows PDAL 2.9.2's
// filters/private/DimRange.cpp (DimRange::subParse, valuePasses,
// pointPasses), which filters.range and filters.assign share.
type DimRange struct {
	Name           string
	Lower, Upper   float64
	LowerInclusive bool
	UpperInclusive bool
	Negate         bool
}

// rangeError is a range that does not parse: PDAL's DimRange::error.
func rangeError(text, why string) error {
	return Usagef("invalid range %q: %s (want as PDAL: Name[lower:upper], ( ) for exclusive bounds, Name![...] to negate)", text, why)
}

// ParseDimRange parses one range; rest is what follows it (PDAL's
// subParse returns the position after it and the trailing spaces).
func ParseDimRange(text string) (r DimRange, rest string, err error) {
	s := strings.TrimLeftFunc(text, unicode.IsSpace)
	// Dimension::extractName: a letter, then letters, digits, '_' or ' '.
	n := 0
	for i, c := range s {
		if i == 0 && !isASCIILetter(c) || i > 0 && !isASCIILetter(c) && !('0' <= c && c <= '9') && c != '_' && c != ' ' {
			break
		}
		n = i + 1
	}
	if n == 0 {
		if strings.HasPrefix(s, "!") {
			return r, "", rangeError(text, "no dimension name (PDAL negates after the name: Classification![7:7])")
		}
		return r, "", rangeError(text, "no dimension name")
	}
	r.Name, s = s[:n], s[n:]
	r.LowerInclusive, r.UpperInclusive = true, true
	if strings.HasPrefix(s, "!") {
		r.Negate, s = true, s[1:]
	}
	switch {
	case strings.HasPrefix(s, "("):
		r.LowerInclusive = false
	case !strings.HasPrefix(s, "["):
		return r, "", rangeError(text, "missing '(' or '['")
	}
	s = s[1:]
	var ok bool
	if r.Lower, s, ok = scanNumber(s, -math.MaxFloat64); !ok {
		return r, "", rangeError(text, "missing ':' limit separator")
	}
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(s, ":") {
		return r, "", rangeError(text, "missing ':' limit separator")
	}
	if r.Upper, s, ok = scanNumber(s[1:], math.MaxFloat64); !ok {
		return r, "", rangeError(text, "missing ')' or ']'")
	}
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	switch {
	case strings.HasPrefix(s, ")"):
		r.UpperInclusive = false
	case !strings.HasPrefix(s, "]"):
		return r, "", rangeError(text, "missing ')' or ']'")
	}
	return r, strings.TrimLeftFunc(s[1:], unicode.IsSpace), nil
}

func isASCIILetter(c rune) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// scanNumber reads a number at the start of s as C++'s istream >> double
// does (spaces skipped, then the longest decimal prefix): the number and
// what follows, or def and s unchanged when none is there. ok is false
// when the number ends the text (PDAL's "missing separator" on eof).
func scanNumber(s string, def float64) (v float64, rest string, ok bool) {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i++
		}
		return i - j
	}
	d := digits()
	if i < len(t) && t[i] == '.' {
		i++
		d += digits()
	}
	if d == 0 {
		return def, s, true
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if digits() == 0 {
			i = j
		}
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil && !math.IsInf(v, 0) {
		return def, s, true
	}
	return v, t[i:], i < len(t)
}

// ParseDimRanges parses PDAL's limits: ranges separated by commas, as
// filters.range's "limits" option takes them.
func ParseDimRanges(text string) ([]DimRange, error) {
	var out []DimRange
	err := eachRange(text, func(r DimRange, rest string) (string, error) {
		out = append(out, r)
		return rest, nil
	})
	return out, err
}

// eachRange parses the comma list text of ranges, each followed by what
// tail reads (tail returns what is left of rest, which must be spaces).
func eachRange(text string, tail func(r DimRange, rest string) (string, error)) error {
	for part := range strings.SplitSeq(text, ",") {
		r, rest, err := ParseDimRange(part)
		if err == nil {
			rest, err = tail(r, rest)
		}
		if err == nil && strings.TrimSpace(rest) != "" {
			err = rangeError(part, "invalid characters following valid range")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Passes says whether v passes r (DimRange::valuePasses): NaN passes no
// range, and passes every negated one.
func (r DimRange) Passes(v float64) bool {
	fail := math.IsNaN(v) ||
		r.LowerInclusive && v < r.Lower || !r.LowerInclusive && v <= r.Lower ||
		r.UpperInclusive && v > r.Upper || !r.UpperInclusive && v >= r.Upper
	return fail == r.Negate
}

// String writes r in PDAL's syntax.
func (r DimRange) String() string {
	var b strings.Builder
	b.WriteString(r.Name)
	if r.Negate {
		b.WriteByte('!')
	}
	b.WriteByte("(["[b2i(r.LowerInclusive)])
	if r.Lower != -math.MaxFloat64 {
		b.WriteString(strconv.FormatFloat(r.Lower, 'g', -1, 64))
	}
	b.WriteByte(':')
	if r.Upper != math.MaxFloat64 {
		b.WriteString(strconv.FormatFloat(r.Upper, 'g', -1, 64))
	}
	b.WriteByte(")]"[b2i(r.UpperInclusive)])
	return b.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rangeSet is a parsed list of limits grouped by dimension, as
// RangeFilter::prepared sorts them: a point passes when, for every
// dimension, it passes one of that dimension's ranges (OR within a
// dimension, AND across dimensions: DimRange::pointPasses).
type rangeSet struct {
	dims   []string     // distinct dimension names, in the cloud's spelling
	ranges [][]DimRange // each dimension's ranges
}

// newRangeSet groups ranges by dimension, each name spelt as pctk spells
// its standard dimensions (PDAL finds names without regard to case).
func newRangeSet(ranges []DimRange) rangeSet {
	var s rangeSet
	for _, r := range ranges {
		r.Name = dimName(r.Name)
		d := slices.Index(s.dims, r.Name)
		if d < 0 {
			d = len(s.dims)
			s.dims = append(s.dims, r.Name)
			s.ranges = append(s.ranges, nil)
		}
		s.ranges[d] = append(s.ranges[d], r)
	}
	return s
}

// passes says whether point i of vals (one column per dimension of s, as
// LocalInput.Values holds them) passes s.
func (s rangeSet) passes(vals [][]float64, i int) bool {
	for d, rs := range s.ranges {
		if !slices.ContainsFunc(rs, func(r DimRange) bool { return r.Passes(vals[d][i]) }) {
			return false
		}
	}
	return true
}

// dimName returns name as core spells a known dimension of that name
// without regard to case ("classification": "Classification"), else name.
func dimName(name string) string {
	for _, d := range []string{"X", "Y", "Z"} {
		if strings.EqualFold(name, d) {
			return d
		}
	}
	if d, ok := core.LookupDimensionFold(name); ok {
		return d.Name
	}
	return name
}
