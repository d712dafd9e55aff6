package fntest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Tolerances of CheckBackend. Distances are recomputed in float64 from the
// float32 coordinate differences (which IEEE subtraction makes identical on
// every processor); what may differ between backends is only the rounding
// of the float32 squares and sums (≤ a few ulps, 2⁻²³ ≈ 1.2e-7 each), fused
// multiply-adds, and the order of float32 accumulations on GPUs.
const (
	// TieRelTol: a pair whose distance is within TieRelTol·ε of ε is a tie;
	// backends may disagree on whether it is a neighbour (the API's
	// "within about 1e-6 relative of ε").
	TieRelTol = 1e-6
	// NearRelTol: two neighbours of one query whose distances differ by at
	// most NearRelTol relative may appear in either order (and either may
	// be the k-th nearest), unless their coordinates are identical: then
	// every backend computes the same distance and the smaller index wins.
	NearRelTol = 1e-6
	// DistRelTol bounds the relative error of a reported distance: a
	// float32 square root of a float32 sum is good to a few ulps.
	DistRelTol = 1e-5
	// MomentRelTol bounds the error of each Moment sum relative to the sum
	// of the absolute values of its terms: float32 accumulation over a few
	// thousand terms (GPU backends) stays well inside it, float64 (CPU)
	// far inside.
	MomentRelTol = 1e-4
)

// Config chooses how hard CheckBackendWith tests.
type Config struct {
	// Seeds are the generator seeds; each gives a fresh set of Clouds.
	Seeds []uint64
	// N is the number of points of each cloud.
	N int
}

// CheckBackend compares every operation of backend b with the brute
// backend on the clouds of Clouds and the radii of Eps (plus ε = +Inf for
// KNearest and k-nearest Moments) for two seeds (one with -short), with
// the self mode (q == nil) and with a separate query set. Failures name the
// cloud, seed, ε and operation.
func CheckBackend(t *testing.T, b findneighbor.Backend) {
	t.Helper()
	cfg := Config{Seeds: []uint64{1, 2}, N: 700}
	if testing.Short() {
		cfg.Seeds = cfg.Seeds[:1]
	}
	CheckBackendWith(t, b, cfg)
}

// CheckBackendWith is CheckBackend with a chosen configuration.
func CheckBackendWith(t testing.TB, b findneighbor.Backend, cfg Config) {
	t.Helper()
	for _, seed := range cfg.Seeds {
		CheckClouds(t, b, Clouds(seed, cfg.N), Eps, seed)
	}
}

// CheckClouds compares backend b with brute on the given clouds and radii
// (plus ε = +Inf), as CheckBackend does; seed drives the query sets and
// core masks and is printed on failure.
func CheckClouds(t testing.TB, b findneighbor.Backend, clouds []Cloud, eps []float32, seed uint64) {
	t.Helper()
	for _, c := range clouds {
		for _, e := range append(slices.Clone(eps), float32(math.Inf(1))) {
			if e >= hugeEps {
				// Everything is a neighbour: lists are N long, so fewer
				// points say as much in less time.
				c.XYZ = c.XYZ[:min(len(c.XYZ), 3*hugeN)]
			}
			ctx := fmt.Sprintf("%s: cloud %s (%d points) seed %d ε %g", b.Name(), c.Name, c.Len(), seed, e)
			checkCase(t, b, c, e, Rand(seed^0x51ab), ctx)
		}
	}
}

// hugeEps and hugeN: radii from hugeEps up are tried on the first hugeN
// points of each cloud only.
const (
	hugeEps = 50
	hugeN   = 250
)

// reporter counts and limits the errors of one case.
type reporter struct {
	t   testing.TB
	ctx string
	n   int
}

func (r *reporter) errorf(format string, args ...any) {
	r.t.Helper()
	r.n++
	if r.n <= 6 {
		r.t.Errorf(r.ctx+": "+format, args...)
	} else if r.n == 7 {
		r.t.Errorf("%s: more errors not shown", r.ctx)
	}
}

// ref knows the truth for one cloud, query set and ε, with the ties.
type ref struct {
	xyz, qs []float32
	self    bool
	eps     float32
	want    findneighbor.Index // the brute index
	backend string             // the name of the backend under test
	amb     [][]int32          // per query, indexed points at a tie distance
	mark    []bool             // scratch, all false between calls
}

func newRef(xyz, q []float32, eps float32, want findneighbor.Index) (*ref, error) {
	r := &ref{xyz: xyz, qs: q, self: q == nil, eps: eps, want: want, mark: make([]bool, len(xyz)/3)}
	if r.self {
		r.qs = xyz
	}
	r.amb = make([][]int32, len(r.qs)/3)
	if math.IsInf(float64(eps), 1) || eps == 0 {
		return r, nil // no ties: every pair is in, or only exact copies are
	}
	wide, err := findneighbor.Brute().Build(xyz, eps*(1+4*TieRelTol), findneighbor.BuildOptions{})
	if err != nil {
		return nil, err
	}
	csr, err := wide.Neighbors(q, findneighbor.NeighborOptions{})
	if err != nil {
		return nil, err
	}
	for i := range r.amb {
		for _, j := range csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]] {
			if r.isTie(i, int(j)) {
				r.amb[i] = append(r.amb[i], j)
			}
		}
	}
	return r, nil
}

// d is the distance from query i to point j, from float32 differences.
func (r *ref) d(i, j int) float64 {
	var s float64
	for a := range 3 {
		v := float64(r.qs[3*i+a] - r.xyz[3*j+a])
		s += v * v
	}
	return math.Sqrt(s)
}

func (r *ref) isTie(i, j int) bool {
	e := float64(r.eps)
	return !math.IsInf(e, 1) && math.Abs(r.d(i, j)-e) <= TieRelTol*e
}

// isNb reports whether j may be a neighbour of query i.
func (r *ref) isNb(i, j int) bool {
	if r.self && i == j {
		return false
	}
	e := float64(r.eps)
	return math.IsInf(e, 1) || r.d(i, j) <= e*(1+TieRelTol)
}

func (r *ref) sameCoords(a, b int) bool {
	return slices.Equal(r.xyz[3*a:3*a+3], r.xyz[3*b:3*b+3])
}

func near(a, b float64) bool { return math.Abs(a-b) <= NearRelTol*max(a, b) }

// checkList compares one query's list got (with distances dist, or nil)
// with brute's want. ordered lists go by distance, others by index.
func (r *ref) checkList(rep *reporter, what string, i int, got []int32, dist []float32, want []int32, ordered bool) {
	rep.t.Helper()
	ok := true
	for j, g := range got {
		switch {
		case g < 0 || int(g) >= len(r.mark) || !r.isNb(i, int(g)):
			rep.errorf("%s: query %d entry %d: point %d is not a neighbour", what, i, j, g)
			ok = false
		case r.mark[g]:
			rep.errorf("%s: query %d: point %d listed twice", what, i, g)
			ok = false
		case !ordered && j > 0 && got[j-1] > g:
			rep.errorf("%s: query %d: entries %d, %d not in index order", what, i, got[j-1], g)
			ok = false
		case dist != nil && math.Abs(float64(dist[j])-r.d(i, int(g))) > DistRelTol*r.d(i, int(g)):
			rep.errorf("%s: query %d: distance to %d is %g, want %g", what, i, g, dist[j], r.d(i, int(g)))
			ok = false
		}
		if ok {
			r.mark[g] = true
		}
	}
	for _, g := range got {
		if g >= 0 && int(g) < len(r.mark) {
			r.mark[g] = false
		}
	}
	if !ok {
		return
	}
	if d := len(got) - len(want); d > len(r.amb[i]) || -d > len(r.amb[i]) {
		rep.errorf("%s: query %d: %d entries, want %d (%d ties at ε)", what, i, len(got), len(want), len(r.amb[i]))
		return
	}
	g2, w2 := got, want
	if !ordered {
		g2, w2 = r.byDist(i, got), r.byDist(i, want)
	}
	for j := range min(len(g2), len(w2)) {
		a, b := int(g2[j]), int(w2[j])
		if a == b || r.isTie(i, a) || r.isTie(i, b) {
			continue
		}
		if r.sameCoords(a, b) || !near(r.d(i, a), r.d(i, b)) {
			rep.errorf("%s: query %d rank %d: got point %d at %g, want %d at %g", what, i, j, a, r.d(i, a), b, r.d(i, b))
			return
		}
	}
}

// byDist returns l sorted by distance from query i, ties by index.
func (r *ref) byDist(i int, l []int32) []int32 {
	type e struct {
		d float64
		j int32
	}
	es := make([]e, len(l))
	for k, j := range l {
		es[k] = e{r.d(i, int(j)), j}
	}
	slices.SortFunc(es, func(a, b e) int {
		if c := cmpF(a.d, b.d); c != 0 {
			return c
		}
		return int(a.j) - int(b.j)
	})
	s := make([]int32, len(l))
	for k := range es {
		s[k] = es[k].j
	}
	return s
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func checkCase(t testing.TB, b findneighbor.Backend, c Cloud, eps float32, rng interface{ Float32() float32 }, ctx string) {
	t.Helper()
	rep := &reporter{t: t, ctx: ctx}
	want, err := findneighbor.Brute().Build(c.XYZ, eps, findneighbor.BuildOptions{})
	if err != nil {
		rep.errorf("brute Build: %v", err)
		return
	}
	got, err := b.Build(c.XYZ, eps, findneighbor.BuildOptions{})
	if err != nil {
		rep.errorf("Build: %v", err)
		return
	}
	defer got.Close()
	if got.Len() != c.Len() || got.Eps() != eps {
		rep.errorf("Len, Eps = %d, %g, want %d, %g", got.Len(), got.Eps(), c.Len(), eps)
	}
	for _, q := range [][]float32{nil, queries(c.XYZ, eps, rng)} {
		r, err := newRef(c.XYZ, q, eps, want)
		if err != nil {
			rep.errorf("reference: %v", err)
			return
		}
		r.backend = b.Name()
		mode := "self"
		if q != nil {
			mode = fmt.Sprintf("%d queries", len(q)/3)
		}
		qrep := &reporter{t: t, ctx: ctx + " " + mode}
		for _, k := range []int{1, 4, 16, 100} {
			r.checkKNearest(qrep, got, q, k)
			r.checkMoments(qrep, got, q, k)
		}
		if math.IsInf(float64(eps), 1) {
			continue
		}
		r.checkCounts(qrep, got, q)
		r.checkMoments(qrep, got, q, 0)
		r.checkNeighbors(qrep, got, q)
		if q == nil {
			r.checkClusterCores(qrep, got, rng)
		}
	}
}

// queries returns a query set unlike the indexed one: exact copies of
// every third point (which must find their twin: no self filter), points
// shifted by about ε, and a few far away.
func queries(xyz []float32, eps float32, rng interface{ Float32() float32 }) []float32 {
	n := len(xyz) / 3
	shift := eps
	if math.IsInf(float64(eps), 1) || eps == 0 {
		shift = 0.5
	}
	var q []float32
	for i := 0; i < n; i += 3 {
		q = append(q, xyz[3*i:3*i+3]...)
		for a := range 3 {
			q = append(q, xyz[3*i+a]+(rng.Float32()-0.5)*shift)
		}
	}
	for range 5 {
		q = append(q, 1e4*rng.Float32(), -1e4*rng.Float32(), rng.Float32())
	}
	return q
}

func (r *ref) checkCounts(rep *reporter, ix findneighbor.Index, q []float32) {
	nq := len(r.qs) / 3
	got, want := make([]uint32, nq), make([]uint32, nq)
	if err := r.want.Counts(q, want); err != nil {
		rep.errorf("brute Counts: %v", err)
		return
	}
	if err := ix.Counts(q, got); err != nil {
		rep.errorf("Counts: %v", err)
		return
	}
	for i := range nq {
		if d := int(got[i]) - int(want[i]); d > len(r.amb[i]) || -d > len(r.amb[i]) {
			rep.errorf("Counts: query %d: got %d, want %d (%d ties at ε)", i, got[i], want[i], len(r.amb[i]))
		}
	}
}

func (r *ref) checkNeighbors(rep *reporter, ix findneighbor.Index, q []float32) {
	nq := len(r.qs) / 3
	opts := []findneighbor.NeighborOptions{
		{}, {WithDist: true}, {Sorted: true}, {Sorted: true, WithDist: true},
		{Cap: 1}, {Cap: 5, WithDist: true}, {Cap: 5, Sorted: true}, {Cap: 40, Sorted: true, WithDist: true},
	}
	var total, ties int64
	for _, o := range opts {
		what := fmt.Sprintf("Neighbors%+v", o)
		want, err := r.want.Neighbors(q, o)
		if err != nil {
			rep.errorf("brute %s: %v", what, err)
			return
		}
		got, err := ix.Neighbors(q, o)
		if err != nil {
			rep.errorf("%s: %v", what, err)
			continue
		}
		if len(got.Offsets) != nq+1 || got.Offsets[0] != 0 || int64(len(got.Indices)) != got.Offsets[nq] ||
			(o.WithDist != (got.Dist != nil)) || (got.Dist != nil && len(got.Dist) != len(got.Indices)) {
			rep.errorf("%s: malformed CSR: %d offsets, %d indices, %d distances", what, len(got.Offsets), len(got.Indices), len(got.Dist))
			continue
		}
		for i := range nq {
			lo, hi := got.Offsets[i], got.Offsets[i+1]
			if hi < lo {
				rep.errorf("%s: offsets decrease at query %d", what, i)
				break
			}
			var dist []float32
			if got.Dist != nil {
				dist = got.Dist[lo:hi]
			}
			r.checkList(rep, what, i, got.Indices[lo:hi], dist, want.Indices[want.Offsets[i]:want.Offsets[i+1]], o.Sorted)
			if o.Cap > 0 {
				gc := len(got.Capped) == nq && got.Capped[i]
				if gc != want.Capped[i] && len(r.amb[i]) == 0 {
					rep.errorf("%s: query %d: Capped = %v, want %v", what, i, gc, want.Capped[i])
				}
			}
		}
		if o == (findneighbor.NeighborOptions{}) {
			total = want.Offsets[nq]
			for _, a := range r.amb {
				ties += int64(len(a))
			}
		}
	}
	// The entry limit: far too small must fail before allocating, enough must pass.
	if total > ties+1 {
		_, err := ix.Neighbors(q, findneighbor.NeighborOptions{MaxEntries: 1})
		if !errors.Is(err, findneighbor.ErrTooLarge) {
			rep.errorf("Neighbors{MaxEntries: 1} with %d entries: err = %v, want ErrTooLarge", total, err)
		}
	}
	if _, err := ix.Neighbors(q, findneighbor.NeighborOptions{MaxEntries: total + ties + 1}); err != nil {
		rep.errorf("Neighbors{MaxEntries: %d} with %d entries: %v", total+ties+1, total, err)
	}
}

func (r *ref) checkKNearest(rep *reporter, ix findneighbor.Index, q []float32, k int) {
	nq := len(r.qs) / 3
	what := fmt.Sprintf("KNearest(k=%d)", k)
	wi, gi := make([]int32, nq*k), make([]int32, nq*k)
	gd := make([]float32, nq*k)
	if err := r.want.KNearest(q, k, wi, nil); err != nil {
		rep.errorf("brute %s: %v", what, err)
		return
	}
	if err := ix.KNearest(q, k, gi, gd); err != nil {
		rep.errorf("%s: %v", what, err)
		return
	}
	// Without distances too: the same indices.
	gi2 := make([]int32, nq*k)
	if err := ix.KNearest(q, k, gi2, nil); err != nil {
		rep.errorf("%s without distances: %v", what, err)
	} else if !slices.Equal(gi, gi2) {
		rep.errorf("%s: indices differ with and without distances", what)
	}
	for i := range nq {
		g, d := gi[i*k:(i+1)*k], gd[i*k:(i+1)*k]
		n := valid(g)
		for j := n; j < k; j++ {
			if g[j] != -1 || !math.IsInf(float64(d[j]), 1) {
				rep.errorf("%s: query %d slot %d after %d neighbours: got %d at %g, want -1 at +Inf", what, i, j, n, g[j], d[j])
				break
			}
		}
		r.checkList(rep, what, i, g[:n], d[:n], wi[i*k:i*k+valid(wi[i*k:(i+1)*k])], true)
	}
}

// valid returns the number of entries before the first -1.
func valid(l []int32) int {
	if n := slices.Index(l, -1); n >= 0 {
		return n
	}
	return len(l)
}

func (r *ref) checkMoments(rep *reporter, ix findneighbor.Index, q []float32, k int) {
	nq := len(r.qs) / 3
	what := fmt.Sprintf("Moments(k=%d)", k)
	got := make([]findneighbor.Moment, nq)
	if err := findneighbor.Moments(ix, r.xyz, q, k, got); err != nil {
		rep.errorf("%s: %v", what, err)
		return
	}
	r.checkGenericMoments(rep, ix, q, k, got)
	// The neighbour set the sums run over, from brute: all within ε, or the
	// k nearest (k+1 of them, to see a near tie at the k-th place).
	lists := make([][]int32, nq)
	if k == 0 {
		csr, err := r.want.Neighbors(q, findneighbor.NeighborOptions{})
		if err != nil {
			rep.errorf("brute Neighbors: %v", err)
			return
		}
		for i := range nq {
			lists[i] = csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]]
		}
	} else {
		idx := make([]int32, nq*(k+1))
		if err := r.want.KNearest(q, k+1, idx, nil); err != nil {
			rep.errorf("brute KNearest: %v", err)
			return
		}
		for i := range nq {
			lists[i] = idx[i*(k+1) : i*(k+1)+valid(idx[i*(k+1):(i+1)*(k+1)])]
		}
	}
	for i := range nq {
		l := lists[i]
		if k > 0 && len(l) > k {
			if near(r.d(i, int(l[k-1])), r.d(i, int(l[k]))) && !r.sameCoords(int(l[k-1]), int(l[k])) {
				continue // which one is the k-th is a matter of rounding
			}
			l = l[:k]
		}
		g := got[i]
		if d := int(g.N) - len(l); d > len(r.amb[i]) || -d > len(r.amb[i]) {
			rep.errorf("%s: query %d: N = %d, want %d (%d ties at ε)", what, i, g.N, len(l), len(r.amb[i]))
			continue
		}
		if len(r.amb[i]) > 0 {
			continue
		}
		var want findneighbor.Moment
		var absSum, absOuter float64
		for _, j := range l {
			var d [3]float64
			for a := range 3 {
				d[a] = float64(r.xyz[3*int(j)+a]) - float64(r.qs[3*i+a])
				want.Sum[a] += d[a]
				absSum += math.Abs(d[a])
				absOuter += d[a] * d[a]
			}
			if k > 0 {
				want.Dist += r.d(i, int(j))
			}
			o := [6]float64{d[0] * d[0], d[0] * d[1], d[0] * d[2], d[1] * d[1], d[1] * d[2], d[2] * d[2]}
			for a := range 6 {
				want.Outer[a] += o[a]
			}
		}
		for a := range 3 {
			if math.Abs(g.Sum[a]-want.Sum[a]) > MomentRelTol*absSum {
				rep.errorf("%s: query %d: Sum = %v, want %v", what, i, g.Sum, want.Sum)
				break
			}
		}
		if math.Abs(g.Dist-want.Dist) > MomentRelTol*want.Dist || (k == 0 && g.Dist != 0) {
			rep.errorf("%s: query %d: Dist = %v, want %v", what, i, g.Dist, want.Dist)
		}
		for a := range 6 {
			if math.Abs(g.Outer[a]-want.Outer[a]) > MomentRelTol*absOuter {
				rep.errorf("%s: query %d: Outer = %v, want %v", what, i, g.Outer, want.Outer)
				break
			}
		}
	}
}

func (r *ref) checkClusterCores(rep *reporter, ix findneighbor.Index, rng interface{ Float32() float32 }) {
	n := len(r.xyz) / 3
	counts := make([]uint32, n)
	if err := r.want.Counts(nil, counts); err != nil {
		rep.errorf("brute Counts: %v", err)
		return
	}
	masks := map[string][]bool{"none": make([]bool, n), "all": make([]bool, n), "random": make([]bool, n)}
	for _, minPts := range []uint32{3, 12} {
		m := make([]bool, n)
		for i, c := range counts {
			m[i] = c+1 >= minPts
		}
		masks[fmt.Sprintf("minPts %d", minPts)] = m
	}
	for i := range n {
		masks["all"][i] = true
		masks["random"][i] = rng.Float32() < 0.4
	}
	for name, isCore := range masks {
		what := "ClusterCores(" + name + ")"
		want, got := make([]int32, n), make([]int32, n)
		if err := findneighbor.ClusterCores(r.want, r.xyz, isCore, want); err != nil {
			rep.errorf("brute %s: %v", what, err)
			return
		}
		if err := findneighbor.ClusterCores(ix, r.xyz, isCore, got); err != nil {
			rep.errorf("%s: %v", what, err)
			continue
		}
		r.checkGenericClusterCores(rep, ix, isCore, got, what)
		if r.coreTies(isCore) {
			continue // two cores at a tie distance: components may differ
		}
		for i := range n {
			if got[i] == want[i] {
				continue
			}
			if isCore[i] || !r.borderOK(i, isCore, want, got[i]) {
				rep.errorf("%s: point %d (core %v): label %d, want %d", what, i, isCore[i], got[i], want[i])
			}
		}
	}
}

// coreTies reports whether two core points lie at a tie distance.
func (r *ref) coreTies(isCore []bool) bool {
	for i, a := range r.amb {
		for _, j := range a {
			if isCore[i] && isCore[j] {
				return true
			}
		}
	}
	return false
}

// borderOK reports whether non-core point i may carry label l: a core
// neighbour at a tie distance, or one as near as the nearest, carries it.
func (r *ref) borderOK(i int, isCore []bool, want []int32, l int32) bool {
	best := math.Inf(1)
	for j := range isCore {
		if isCore[j] && r.isNb(i, j) && !r.isTie(i, j) {
			best = min(best, r.d(i, j))
		}
	}
	if l == -1 {
		return math.IsInf(best, 1) // every core neighbour is at a tie distance
	}
	for j := range isCore {
		if isCore[j] && r.isNb(i, j) && want[j] == l && (r.isTie(i, j) || near(r.d(i, j), best)) {
			return true
		}
	}
	return false
}

// plain hides an index's optional capabilities (Momenter, ClusterCorer),
// so that findneighbor's package functions take their generic path, built
// on the core methods alone.
type plain struct{ findneighbor.Index }

// exactMoments reports whether backend name's own Moments promise the
// generic sums to the bit (findneighbor.Moments): brute's for every k, the
// cpu backend's for k > 0.
func exactMoments(name string, k int) bool {
	return name == "brute" || (name == "cpu" && k > 0)
}

// checkGenericMoments compares the moments an index computed itself (got)
// with findneighbor's generic sums over its own KNearest or Neighbors
// lists: equal to the bit where the API promises it, else equal counts
// (but at a tie distance) and sums within MomentRelTol of their scale
// (Σ|dₐ| ≤ √(N·tr Outer), Σ|dₐd_b| ≤ tr Outer).
func (r *ref) checkGenericMoments(rep *reporter, ix findneighbor.Index, q []float32, k int, got []findneighbor.Moment) {
	if _, ok := ix.(findneighbor.Momenter); !ok {
		return // got came from the generic path already
	}
	what := fmt.Sprintf("Moments(k=%d) against the generic sums", k)
	gen := make([]findneighbor.Moment, len(got))
	if err := findneighbor.Moments(plain{ix}, r.xyz, q, k, gen); err != nil {
		rep.errorf("%s: %v", what, err)
		return
	}
	exact := exactMoments(r.backend, k)
	for i, g := range got {
		w := gen[i]
		if exact {
			if g != w {
				rep.errorf("%s: query %d: got %+v, want %+v (bits)", what, i, g, w)
			}
			continue
		}
		if len(r.amb[i]) > 0 {
			continue
		}
		if g.N != w.N {
			rep.errorf("%s: query %d: N = %d, want %d", what, i, g.N, w.N)
			continue
		}
		tr := w.Outer[0] + w.Outer[3] + w.Outer[5]
		tol := [2]float64{MomentRelTol * math.Sqrt(float64(w.N)*tr), MomentRelTol * tr}
		bad := math.Abs(g.Dist-w.Dist) > MomentRelTol*w.Dist
		for a := range 3 {
			bad = bad || math.Abs(g.Sum[a]-w.Sum[a]) > tol[0]
		}
		for a := range 6 {
			bad = bad || math.Abs(g.Outer[a]-w.Outer[a]) > tol[1]
		}
		if bad {
			rep.errorf("%s: query %d: got %+v, want %+v", what, i, g, w)
		}
	}
}

// checkGenericClusterCores compares the labels an index computed itself
// (got) with findneighbor's generic union-find over its own neighbour
// lists: identical.
func (r *ref) checkGenericClusterCores(rep *reporter, ix findneighbor.Index, isCore []bool, got []int32, what string) {
	if _, ok := ix.(findneighbor.ClusterCorer); !ok {
		return
	}
	gen := make([]int32, len(got))
	if err := findneighbor.ClusterCores(plain{ix}, r.xyz, isCore, gen); err != nil {
		rep.errorf("generic %s: %v", what, err)
		return
	}
	for i := range got {
		if got[i] != gen[i] {
			rep.errorf("%s: point %d (core %v): label %d, the generic union-find's %d", what, i, isCore[i], got[i], gen[i])
		}
	}
}
