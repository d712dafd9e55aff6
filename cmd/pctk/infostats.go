package main

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/pctk/pctk/core"
)

// dimStats are a dimension's statistics as PDAL's filters.stats reports
// them (filters/StatsFilter.cpp, Summary): count, minimum, maximum,
// average and the sample standard deviation (n-1), over the values that
// are not NaN.
type dimStats struct {
	Name   string  `json:"name"`
	Count  int     `json:"count"`
	Min    float64 `json:"minimum"`
	Max    float64 `json:"maximum"`
	Mean   float64 `json:"average"`
	StdDev float64 `json:"stddev"`
}

// classCount is the number of points of a classification code.
type classCount struct {
	Code  int    `json:"code"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// returnCount is the number of points of return Return of Of.
type returnCount struct {
	Return int `json:"return"`
	Of     int `json:"of"`
	Count  int `json:"count"`
}

// statsOf returns the statistics of X, Y, Z and each attribute of c.
func statsOf(c *core.Cloud) []dimStats {
	cols := []*core.Attribute{core.NewColumn("X", c.X), core.NewColumn("Y", c.Y), core.NewColumn("Z", c.Z)}
	var out []dimStats
	for _, a := range append(cols, c.Attrs...) {
		s := dimStats{Name: a.Name, Min: math.NaN(), Max: math.NaN(), Mean: math.NaN(), StdDev: math.NaN()}
		sum := 0.0
		for i := range a.Len() {
			v := a.Float64(i)
			if math.IsNaN(v) {
				continue
			}
			if s.Count == 0 || v < s.Min {
				s.Min = v
			}
			if s.Count == 0 || v > s.Max {
				s.Max = v
			}
			s.Count++
			sum += v
		}
		if s.Count > 0 {
			s.Mean = sum / float64(s.Count)
			m2 := 0.0
			for i := range a.Len() {
				if d := a.Float64(i) - s.Mean; !math.IsNaN(d) {
					m2 += d * d
				}
			}
			if s.Count > 1 {
				s.StdDev = math.Sqrt(m2 / float64(s.Count-1))
			}
		}
		out = append(out, s)
	}
	return out
}

// classesOf returns the points of each classification code present in
// c, in increasing code; nil without a Classification dimension.
func classesOf(c *core.Cloud) []classCount {
	a := c.Attr(core.DimClassification)
	if a == nil {
		return nil
	}
	n := map[int]int{}
	for i := range a.Len() {
		n[int(a.Float64(i))]++
	}
	out := []classCount{}
	for code := range 256 {
		if n[code] > 0 {
			out = append(out, classCount{code, core.ClassName(code), n[code]})
		}
	}
	return out
}

// returnsOf returns the points of each (return number, number of returns)
// present in c, ordered by number of returns then return number; nil
// without those dimensions.
func returnsOf(c *core.Cloud) []returnCount {
	r, of := c.Attr(core.DimReturnNumber), c.Attr(core.DimNumberOfReturns)
	if r == nil || of == nil {
		return nil
	}
	n := map[[2]int]int{}
	for i := range r.Len() {
		n[[2]int{int(of.Float64(i)), int(r.Float64(i))}]++
	}
	out := []returnCount{}
	for m := range 256 {
		for k := range 256 {
			if v := n[[2]int{m, k}]; v > 0 {
				out = append(out, returnCount{k, m, v})
			}
		}
	}
	return out
}

// printHistograms prints the statistics, classes and returns of r, the
// numbers grouped by thousands.
func printHistograms(w io.Writer, r infoReport) {
	if len(r.Stats) > 0 {
		fmt.Fprintf(w, "stats:      %-20s %12s %16s %16s %16s %16s\n", "dimension", "count", "minimum", "maximum", "average", "stddev")
		for _, s := range r.Stats {
			fmt.Fprintf(w, "            %-20s %12s %16s %16s %16s %16s\n", s.Name, grouped(s.Count), number(s.Min), number(s.Max), short(s.Mean), short(s.StdDev))
		}
	}
	if len(r.Classes) > 0 {
		fmt.Fprintf(w, "classes:    (ASPRS, LAS 1.4)\n")
		for _, c := range r.Classes {
			fmt.Fprintf(w, "  %3d %-26s %12s %7.2f%%\n", c.Code, c.Name, grouped(c.Count), percent(c.Count, r.Points))
		}
	}
	if len(r.Returns) > 0 {
		var first, last, single, mid int
		for _, c := range r.Returns {
			switch {
			case c.Of == 1 && c.Return == 1:
				single += c.Count
			case c.Return == 1:
				first += c.Count
			case c.Return == c.Of:
				last += c.Count
			default:
				mid += c.Count
			}
		}
		fmt.Fprintf(w, "returns:    single %s, first of several %s, intermediate %s, last of several %s\n", grouped(single), grouped(first), grouped(mid), grouped(last))
		for _, c := range r.Returns {
			fmt.Fprintf(w, "  return %d of %d %12s %7.2f%%\n", c.Return, c.Of, grouped(c.Count), percent(c.Count, r.Points))
		}
	}
}

// percent returns 100·n/of (0 when of is 0).
func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// grouped writes n with its digits grouped by thousands: 1,234,567.
func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// short writes v with 10 significant digits: a mean or deviation, whose
// last digits are noise.
func short(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
