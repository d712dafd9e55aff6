package cpu

import (
	"math"
	"slices"
	"sort"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// Leaf-batched k-nearest search of the indexed points themselves, what PCA
// normals (Moments(nil, k)) and statistical outlier removal (KNearest(nil,
// k)) ask of every point. A kd-tree leaf is a batch of queries close to one
// another, so instead of descending the tree from the root for each of
// them it
//
//  1. finds the k nearest of one query p0 of the leaf (the one nearest
//     the leaf's centre), and so its k-th distance r0: gathered within a
//     guess g from the previous batch (lastSlack) from the leaves within
//     g + max|q - p0| of the leaf's box, or searched from the tree's root
//     where the guess holds fewer than k;
//  2. has then listed once the leaves that can hold a neighbour of any
//     query of the leaf: those within r0 + max|q - p0| of the leaf's box,
//     since the ball of that radius around any query q holds p0 and p0's k
//     nearest, k+1 points of which at most one is q itself (the list for
//     the guess, r0 ≤ g, serves where the guess held; else it is listed
//     now);
//  3. gathers without branching, for every further query q, the points
//     of the listed leaves within a guess at q's k-th distance
//     (guessSlack); where fewer than k are within it, within the bound
//     the done queries p give the same way, r_q ≤ min r_p + |q - p|,
//     which the listed leaves cover; and selects the k nearest (keepK).
//
// No tree is descended per query: 1.2-1.4× faster than the per-query
// search on a real scan before the guess, 4% slower on uniform 3D points,
// where the bound holds more (docs/findneighbor.md has the measurements).

// batchSlack widens squared bounds against float32 rounding: the bounds
// come from computed distances a few ulps off their exact values, and the
// widening only adds candidates that the selection then ranks exactly.
const batchSlack = 1e-4

// lastSlack widens the k-th distance of the previous batch's first query
// into a guess at the next one's.
const lastSlack = 0.25

// guessSlack widens the guess at a query's k-th distance: the smallest
// k-th distance of the leaf's done queries, times 1 + guessSlack. The
// candidates within it are gathered first, and only where fewer than k
// are, those within the sure bound (min r_p + |q - p|), about 1.3 times
// the k-th distance on a real scan (median; 2.4 times at p99), while 1.2
// times the k-th distance of the nearest done query holds it for 98% of
// the queries; the smallest of the leaf's, taken here because it costs
// nothing to keep, holds it for 85% (measured on the tiled table scene,
// 43.6 candidates kept per query on average): fewer candidates to scan and
// to select from, 4-9% faster KNN normals in back-to-back runs.
const guessSlack = 0.2

// leafScratch is one worker's memory for the batched search.
type leafScratch struct {
	kb      hostkit.KBest
	stack   []kdVisit
	near    []nearLeaf // the leaves within reach of the current leaf
	boxes   []float32  // their boxes, for boxMaskAVX512
	masks   []uint16
	spans   []int32 // their point ranges, for gatherSpans
	nearMax int     // the most points one of them holds
	keys    []uint64
	pk      []uint64 // position keys of a full search's result
	kc      []hostkit.Kent
	done    []doneQuery
	lastR   float32   // the k-th distance of the previous batch's p0
	_       [128]byte // workers' scratch side by side share no cache line
}

// nearLeaf is a leaf within reach of a batch, with the squared distance
// between their boxes (no query of the batch is nearer to the leaf): the
// distance's float32 bits in the high half, the node in the low half, so
// that sorting the keys sorts by distance.
type nearLeaf uint64

func (nl nearLeaf) node() int32 { return int32(uint32(nl)) }
func (nl nearLeaf) d2() float32 { return math.Float32frombits(uint32(nl >> 32)) }

// doneQuery is a query of the current leaf whose k nearest are known: its
// tree position and k-th distance.
type doneQuery struct {
	pos int32
	r   float32
}

// selfNearest calls emit(w, self, keys) for every indexed point, on nw
// workers (w is the worker's number): self is the point's tree position,
// keys the position keys of its k nearest other points (1 ≤ k), in no
// particular order, valid only during the call.
func (t *kdtree) selfNearest(k, nw int, progress func(float64), emit func(w int, self int32, keys []uint64)) error {
	var leaves []int32
	for i := range t.nodes {
		if nd := &t.nodes[i]; nd.left < 0 && nd.hi > nd.lo {
			leaves = append(leaves, int32(i))
		}
	}
	sc := make([]leafScratch, nw)
	return hostkit.Parallel(len(leaves), nw, progress, func(w, lo, hi int) error {
		s := &sc[w]
		for _, l := range leaves[lo:hi] {
			t.leafNearest(s, l, k, func(self int32, keys []uint64) { emit(w, self, keys) })
		}
		return nil
	})
}

// leafNearest is selfNearest for the queries of one leaf.
func (t *kdtree) leafNearest(s *leafScratch, leaf int32, k int, emit func(self int32, keys []uint64)) {
	nd := &t.nodes[leaf]
	lo, hi := nd.lo, nd.hi
	full := func(i int32) float32 {
		s.kb.Reset(k)
		t.nearest(&s.kb, &s.stack, t.xs[i], t.ys[i], t.zs[i], i)
		worst := s.kb.WorstSq() // before finish, which may reorder a heap
		s.kb.Finish(false)
		s.pk = s.pk[:0]
		for _, e := range s.kb.C {
			s.pk = append(s.pk, posKey(e))
		}
		emit(i, s.pk)
		return worst
	}
	// p0: the point nearest the box's centre, the first query.
	cx, cy, cz := (nd.bb[0]+nd.bb[3])/2, (nd.bb[1]+nd.bb[4])/2, (nd.bb[2]+nd.bb[5])/2
	p0, best := lo, float32(math.Inf(1))
	for i := lo; i < hi; i++ {
		if d2 := dist2(t.xs[i]-cx, t.ys[i]-cy, t.zs[i]-cz); d2 < best {
			p0, best = i, d2
		}
	}
	far := float32(0) // the squared distance from p0 to the leaf's farthest point
	for i := lo; i < hi; i++ {
		far = max(far, dist2(t.xs[i]-t.xs[p0], t.ys[i]-t.ys[p0], t.zs[i]-t.zs[p0]))
	}
	// p0's k nearest: gathered within a guess g (the previous batch's p0's
	// k-th distance, widened by lastSlack) where it holds k of them, else
	// searched from the tree's root. The leaves listed for the guess are
	// those within g + far of the leaf's box: then, when the guess holds,
	// p0's k-th distance r0 is at most g, and they are all those any query
	// needs (step 2), listed in one walk of the tree instead of two.
	var r0 float32
	found := false
	if s.lastR > 0 {
		g := s.lastR * (1 + lastSlack)
		t.listNear(s, &nd.bb, g+hostkit.Sqrt32(far))
		lim := g * g * (1 + batchSlack)
		if buf := t.gatherNear(s, s.keys[:0], t.xs[p0], t.ys[p0], t.zs[p0], lim, p0); len(buf) >= k {
			r0, found = t.emitNearest(s, buf, k, lim, p0, emit), true
		} else {
			s.keys = buf[:0]
		}
	}
	if !found {
		r0 = full(p0)
	}
	if math.IsInf(float64(r0), 1) {
		// Fewer than k other points in the whole cloud: no bound to use.
		for i := lo; i < hi; i++ {
			if i != p0 {
				full(i)
			}
		}
		return
	}
	r := hostkit.Sqrt32(r0)
	if !found {
		t.listNear(s, &nd.bb, r+hostkit.Sqrt32(far))
	}
	s.lastR = r
	s.done = append(s.done[:0], doneQuery{p0, r})
	minR := r // the smallest k-th distance of the done queries
	for i := lo; i < hi; i++ {
		if i == p0 {
			continue
		}
		x, y, z := t.xs[i], t.ys[i], t.zs[i]
		// First the guess; where it holds k, their k-th distance bounds
		// the query's, so its k nearest are among them (the near leaves
		// hold every point within the sure bound below, and the k nearest
		// are within that too).
		guess := minR * (1 + guessSlack)
		lim := guess * guess * (1 + batchSlack)
		buf := t.gatherNear(s, s.keys[:0], x, y, z, lim, i)
		if len(buf) < k {
			// The tightest bound the done queries give (the nearest
			// one's is not always it).
			b := float32(math.Inf(1))
			for _, d := range s.done {
				b = min(b, d.r+hostkit.Sqrt32(dist2(t.xs[d.pos]-x, t.ys[d.pos]-y, t.zs[d.pos]-z)))
			}
			lim = b * b * (1 + batchSlack)
			buf = t.gatherNear(s, buf[:0], x, y, z, lim, i)
		}
		s.keys = buf
		if len(buf) < k {
			// Cannot happen by the bound; kept so that rounding beyond
			// the slack would cost time, never a wrong answer.
			s.done = append(s.done, doneQuery{i, hostkit.Sqrt32(full(i))})
			continue
		}
		ri := hostkit.Sqrt32(t.emitNearest(s, buf, k, lim, i, emit))
		s.done = append(s.done, doneQuery{i, ri})
		minR = min(minR, ri)
	}
}

// emitNearest ranks the candidates buf (at least k, in s.keys' memory,
// within squared distance lim) of query i, hands its k nearest to emit and
// returns their k-th squared distance.
func (t *kdtree) emitNearest(s *leafScratch, buf []uint64, k int, lim float32, i int32, emit func(self int32, keys []uint64)) float32 {
	c, d2, kc := rankKeys(buf, k, lim, t.perm, s.kc)
	s.keys, s.kc = c[:0], kc
	emit(i, c)
	return d2
}

// listNear lists in s.near the leaves within reach of box bb, and their
// boxes for boxMaskAVX512 where it runs.
func (t *kdtree) listNear(s *leafScratch, bb *[6]float32, reach float32) {
	s.near = t.leavesNear(bb, reach*reach*(1+4*batchSlack), s.near[:0], &s.stack)
	// Nearest first, so that a query can stop at the first leaf beyond its
	// own bound: what the box tests one by one need. The box masks of
	// AVX-512 test 16 boxes per step, cheaper than sorting even where a
	// leaf holding a far outlier makes its batch's list long (sorting the
	// lists longer than 64 cost 3% of KNN normals, the shorter ones 5%).
	if hasAVX512 {
		t.nearBoxes(s)
	} else {
		slices.Sort(s.near)
	}
}

// nearPrefix returns the leaves of s.near (sorted, without AVX-512) that
// can hold points within squared distance lim of a query: those up to the
// first beyond lim.
func (s *leafScratch) nearPrefix(lim float32) []nearLeaf {
	near := s.near
	return near[:sort.Search(len(near), func(j int) bool { return near[j].d2() > lim })]
}

// gatherNearGo appends to buf the position keys of the points of the
// leaves near, a prefix of s.near (nearPrefix), within squared distance
// lim of (x, y, z), except position self, testing the leaves' boxes one by
// one. gatherNear runs it, or tests 16 boxes at a time with AVX-512.
func (t *kdtree) gatherNearGo(near []nearLeaf, buf []uint64, x, y, z, lim float32, self int32) []uint64 {
	for _, nl := range near {
		ln := &t.nodes[nl.node()]
		if boxDistSq(&ln.bb, x, y, z) <= lim {
			buf = gatherKeys(buf, t.xs, t.ys, t.zs, ln.lo, ln.hi, x, y, z, lim, self)
		}
	}
	return buf
}

// nearBoxes stores the boxes of the leaves s.near in s.boxes for
// boxMaskAVX512 (six rows of len(s.near) floats), their point ranges in
// s.spans for gatherSpans and the size of the largest in s.nearMax.
func (t *kdtree) nearBoxes(s *leafScratch) {
	n := len(s.near)
	s.boxes = slices.Grow(s.boxes[:0], 6*n)[:6*n]
	s.spans = slices.Grow(s.spans[:0], 2*n)[:2*n]
	s.nearMax = 0
	for j, nl := range s.near {
		nd := &t.nodes[nl.node()]
		for a := range 6 {
			s.boxes[a*n+j] = nd.bb[a]
		}
		s.spans[2*j], s.spans[2*j+1] = nd.lo, nd.hi
		s.nearMax = max(s.nearMax, int(nd.hi-nd.lo))
	}
}

// leavesNear appends to out the non-empty leaves whose boxes come within
// squared distance lim of box bb, in tree order.
func (t *kdtree) leavesNear(bb *[6]float32, lim float32, out []nearLeaf, stack *[]kdVisit) []nearLeaf {
	st := append((*stack)[:0], kdVisit{node: 0})
	for len(st) > 0 {
		v := st[len(st)-1].node
		st = st[:len(st)-1]
		nd := &t.nodes[v]
		if nd.hi <= nd.lo {
			continue
		}
		d2 := boxBoxDistSq(&nd.bb, bb)
		if d2 > lim {
			continue
		}
		if nd.left < 0 {
			out = append(out, nearLeaf(uint64(math.Float32bits(d2))<<32|uint64(uint32(v))))
			continue
		}
		st = append(st, kdVisit{node: nd.left}, kdVisit{node: nd.left + 1})
	}
	*stack = st
	return out
}

// boxBoxDistSq is the squared distance between two boxes.
func boxBoxDistSq(a, b *[6]float32) float32 {
	dx := max(a[0]-b[3], 0, b[0]-a[3])
	dy := max(a[1]-b[4], 0, b[1]-a[4])
	dz := max(a[2]-b[5], 0, b[2]-a[5])
	return dx*dx + dy*dy + dz*dz
}
