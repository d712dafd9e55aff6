package neighborclassifier

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/algos/internal/pairs"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// extra is the number of nearest candidates asked for beyond K, so that
// the K nearest in float64 are among them where float32 rounding reorders
// candidates near the K-th.
const extra = 4

// block is the number of queries answered at once.
const block = 1 << 16

// Options are filters.neighborclassifier's options.
type Options struct {
	// K is the number of nearest candidates that vote (PDAL's k, which has
	// no default: it must be ≥ 1).
	K int
	// Domain, when not nil, flags the points subject to the vote (PDAL's
	// domain, evaluated by the caller); nil: every point.
	Domain []bool
	// Candidates, when not nil, are the voting points (PDAL's candidate
	// file), interleaved float32 in the frame of xyz, with their values
	// CandidateValues; nil: the points themselves.
	Candidates      []float32
	CandidateValues []int32
	// Pos and CandidatePos, when not nil, are the float64 coordinates of
	// the points and candidates (interleaved, one frame for both): the
	// distances that order the neighbours are taken from them, as PDAL's.
	// nil: from the float32 coordinates.
	Pos, CandidatePos []float64
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
}

// Validate checks the options.
func (o Options) Validate() error {
	return findneighbor.CheckMin("neighborclassifier", "k", o.K, 1)
}

// Result is filters.neighborclassifier's output.
type Result struct {
	// Values holds every point's value after the vote.
	Values []int32
	// Changed is the number of points whose value changed.
	Changed int
	// Reach holds, for a domain point, the distance of its farthest
	// candidate (its value depends on the candidates within it), 0 for the
	// others.
	Reach []float64
	// NearTies counts the domain points whose k nearest PDAL may choose
	// otherwise (package doc).
	NearTies int
}

// Classify runs filters.neighborclassifier on the points xyz (interleaved
// x, y, z float32 relative to a local origin) whose values are values,
// with backend b.
func Classify(xyz []float32, values []int32, b findneighbor.Backend, o Options) (*Result, error) {
	n, err := findneighbor.CheckPoints("neighborclassifier", xyz)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("neighborclassifier: no backend")
	}
	cand, cval, cpos := xyz, values, o.Pos
	if o.Candidates != nil {
		cand, cval, cpos = o.Candidates, o.CandidateValues, o.CandidatePos
	}
	m, err := findneighbor.CheckPoints("neighborclassifier candidates", cand)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		what string
		got  int
		want int
		set  bool
	}{
		{"values", len(values), n, true},
		{"domain flags", len(o.Domain), n, o.Domain != nil},
		{"float64 coordinates", len(o.Pos), 3 * n, o.Pos != nil},
		{"candidate values", len(cval), m, true},
		{"candidate float64 coordinates", len(cpos), 3 * m, cpos != nil},
	} {
		if c.set && c.got != c.want {
			return nil, fmt.Errorf("neighborclassifier: %d %s, want %d", c.got, c.what, c.want)
		}
	}
	if (o.Pos == nil) != (cpos == nil) {
		return nil, errors.New("neighborclassifier: float64 coordinates for the points and not the candidates, or the reverse")
	}
	r := &Result{Values: slices.Clone(values), Reach: make([]float64, n)}
	if r.Values == nil {
		r.Values = []int32{}
	}
	var queries []int32
	for i := range n {
		if o.Domain == nil || o.Domain[i] {
			queries = append(queries, int32(i))
		}
	}
	if len(queries) == 0 || m == 0 {
		return r, nil
	}
	ix, err := b.Build(cand, float32(math.Inf(1)), o.Build)
	if err != nil {
		return nil, fmt.Errorf("neighborclassifier: %s backend: build index: %w", b.Name(), err)
	}
	defer ix.Close()
	v := voter{k: min(o.K, m), m: m, xyz: xyz, cand: cand, pos: o.Pos, cpos: cpos, cval: cval}
	// slack bounds the difference between a float32 distance and the
	// float64 one of the same pair.
	v.slack = max(pairs.Reach(0, findneighbor.BoxOf(xyz)), pairs.Reach(0, findneighbor.BoxOf(cand)))
	// Rounds of K + extra candidates, then twice as many for the points
	// where a candidate not fetched could be among the k nearest, up to
	// all candidates.
	for kk := min(o.K+extra, m); len(queries) > 0; kk = min(2*kk, m) {
		v.kk = kk
		var again []int32
		idx := make([]int32, min(block, len(queries))*kk)
		dist := make([]float32, len(idx))
		q := make([]float32, 0, 3*min(block, len(queries)))
		for lo := 0; lo < len(queries); lo += block {
			qs := queries[lo:min(lo+block, len(queries))]
			q = q[:0]
			for _, i := range qs {
				q = append(q, xyz[3*i:3*i+3]...)
			}
			if err := ix.KNearest(q, kk, idx[:len(qs)*kk], dist[:len(qs)*kk]); err != nil {
				return nil, fmt.Errorf("neighborclassifier: %s backend: %d nearest: %w", b.Name(), kk, err)
			}
			// The votes on all cores, each range with its own scratch and
			// counts, merged in order.
			rs := par.Ranges(len(qs), 1024)
			parts := make([]votes, len(rs))
			par.For(rs, func(p, lo, hi int) {
				w, out := v, &parts[p]
				w.near, w.tally = nil, nil
				for j := lo; j < hi; j++ {
					i := qs[j]
					nv, majority, reach, tie, more := w.vote(int(i), idx[j*kk:(j+1)*kk], dist[j*kk:(j+1)*kk])
					if more {
						out.again = append(out.again, i)
						continue
					}
					r.Reach[i] = reach
					if tie {
						out.ties++
					}
					if majority && nv != values[i] {
						r.Values[i] = nv
						out.changed++
					}
				}
			})
			for _, p := range parts {
				again = append(again, p.again...)
				r.NearTies += p.ties
				r.Changed += p.changed
			}
		}
		queries = again
	}
	return r, nil
}

// votes is what the votes of a range of queries leave besides each
// point's value and reach: the queries that need more candidates, the
// near ties and the values changed.
type votes struct {
	again         []int32
	ties, changed int
}

// voter holds what each vote reads.
type voter struct {
	k, kk, m  int
	xyz, cand []float32
	pos, cpos []float64
	cval      []int32
	slack     float64
	// near and tally are scratch space of each vote.
	near  []neighbour
	tally []tally
}

type neighbour struct {
	d float64
	j int32
}

type tally struct {
	value int32
	votes int
}

// vote returns the winner of point i's vote among its candidates idx
// (float32 distances dist, nearest first), whether it won a strict
// majority, the distance of the farthest candidate, whether PDAL's k
// nearest may be other ones (an exact tie), and whether more candidates
// are needed to know the k nearest (then the rest is meaningless).
func (v *voter) vote(i int, idx []int32, dist []float32) (winner int32, majority bool, reach float64, tie, more bool) {
	v.near = v.near[:0]
	for _, j := range idx {
		if j < 0 {
			continue
		}
		d := 0.0
		for a := range 3 {
			var e float64
			if v.pos != nil {
				e = v.pos[3*i+a] - v.cpos[3*int(j)+a]
			} else {
				e = float64(v.xyz[3*i+a]) - float64(v.cand[3*int(j)+a])
			}
			d += float64(e * e) // no fused multiply-add
		}
		v.near = append(v.near, neighbour{d, j})
	}
	slices.SortFunc(v.near, func(a, b neighbour) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.j, b.j)) })
	k := min(v.k, len(v.near))
	reach = float64(dist[len(idx)-1])
	// A candidate not fetched (at least reach away in float32, lb in
	// float64) could be as near as the k-th: ask for more.
	dk := v.near[k-1].d
	if v.kk < v.m {
		if lb := reach*(1-1e-5) - v.slack; lb <= 0 || lb*lb <= dk*(1+1e-9) {
			return 0, false, reach, false, true
		}
	}
	// The k-th place is in doubt when candidates at the k-th distance
	// exactly, inside and outside the k, have other values: nanoflann's
	// order picks among them.
	if k < len(v.near) && v.near[k].d == dk {
		for _, nb := range v.near {
			if nb.d == dk && v.cval[nb.j] != v.cval[v.near[k-1].j] {
				tie = true
			}
		}
	}
	// NeighborClassifierFilter::doOneNoDomain: votes per value, the
	// first (smallest) value with the most votes wins a strict majority.
	v.tally = v.tally[:0]
	for _, nb := range v.near[:k] {
		val := v.cval[nb.j]
		t, found := slices.BinarySearchFunc(v.tally, val, func(a tally, b int32) int { return cmp.Compare(a.value, b) })
		if !found {
			v.tally = slices.Insert(v.tally, t, tally{val, 0})
		}
		v.tally[t].votes++
	}
	best := v.tally[0]
	for _, t := range v.tally[1:] {
		if t.votes > best.votes {
			best = t
		}
	}
	return best.value, float64(best.votes) > float64(k)/2, reach, tie, false
}
