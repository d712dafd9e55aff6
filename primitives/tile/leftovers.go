package tile

import (
	"math"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Leftovers searches the exact k nearest of a few query points of a
// cloud that is read a tile at a time (out of core): the points whose k
// nearest the first round of k-nearest tiles could not vouch for
// (Nearest's short points). Each query keeps the k nearest offered so far
// in KNearest's order (findneighbor.DistSq, then global index); Offer
// hands it a tile's owned points, skipping the queries that no point of
// the tile can serve, and Moments sums each query's k nearest in that
// order with Moment.AddNearest, as the in-memory index does, so that once
// every tile has been offered the moments are the whole cloud's
// (findneighbor.KNearestMoments), bit for bit. Its methods may be called
// from several goroutines at once.
type Leftovers struct {
	k    int
	mu   sync.Mutex
	id   []int64
	xyz  []float32
	far  []float32    // a distance no nearer than the k-th nearest: the reach
	best [][]neighbor // the k nearest offered so far, in KNearest's order
}

// neighbor is one of a query's nearest: its squared distance (DistSq),
// distance (as KNearest reports it), coordinates and global index.
type neighbor struct {
	d2, dist, x, y, z float32
	id                int64
}

// before orders neighbours as KNearest does: distance, then index.
func (a neighbor) before(b neighbor) bool {
	return a.d2 < b.d2 || (a.d2 == b.d2 && a.id < b.id)
}

// NewLeftovers returns a search for the k nearest (k > 0) of the query
// points of global indices id at xyz (interleaved x, y, z), whose k-th
// nearest lies no farther than far[j] (the k-th nearest among some points
// of the cloud, as Nearest finds it; +Inf when not known). It keeps the
// slices, read only.
func NewLeftovers(k int, id []int64, xyz, far []float32) *Leftovers {
	return &Leftovers{k: k, id: id, xyz: xyz, far: far, best: make([][]neighbor, len(id))}
}

// LeftoverBytes is the memory a query of a search for the k nearest takes
// beyond its own slices, its moments included.
func LeftoverBytes(k int) int64 { return 32*int64(k) + 112 }

// reach returns how far query j's k nearest may lie: the k-th nearest
// found so far, or far[j].
func (l *Leftovers) reach(j int) float32 {
	if b := l.best[j]; len(b) == l.k {
		return min(l.far[j], b[l.k-1].dist)
	}
	return l.far[j]
}

// Offer adds the owned points of t (each tile of the cloud offered once,
// with its global indices) to the k nearest of the queries that they may
// serve, those within reach of their bounding box, searched on an ε = +Inf
// index of them built with b (a cpu backend: its KNearest orders the k
// nearest as DistSq does).
func (l *Leftovers) Offer(t *Points, b findneighbor.Backend, bo findneighbor.BuildOptions) error {
	owned := t.OwnedIndex()
	if len(owned) == 0 {
		return nil
	}
	pts := coords(t.XYZ, owned)
	box := findneighbor.BoxOf(pts)
	var qs []int
	var q []float32
	l.mu.Lock()
	for j := range l.id {
		p := l.xyz[3*j : 3*j+3]
		var gap float64
		for a := range 3 {
			d := max(float64(box.Min[a])-float64(p[a]), float64(p[a])-float64(box.Max[a]), 0)
			gap += d * d
		}
		// farWithin: every point of the box compares farther than the
		// k-th nearest.
		if !farWithin(l.reach(j), math.Sqrt(gap)) {
			qs = append(qs, j)
			q = append(q, p...)
		}
	}
	l.mu.Unlock()
	if len(qs) == 0 {
		return nil
	}
	bo.Reuse = false
	ix, err := b.Build(pts, float32(math.Inf(1)), bo)
	if err != nil {
		return err
	}
	defer ix.Close()
	// k+1: a query of this tile finds itself among them, which leaves
	// the k nearest others.
	kq := l.k + 1
	idx := make([]int32, len(qs)*kq)
	dist := make([]float32, len(qs)*kq)
	if err := ix.KNearest(q, kq, idx, dist); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, j := range qs {
		qx, qy, qz := q[3*n], q[3*n+1], q[3*n+2]
		for c, i := range idx[n*kq : (n+1)*kq] {
			if i < 0 {
				break
			}
			p := owned[i]
			if t.ID[p] == l.id[j] {
				continue
			}
			x, y, z := t.XYZ[3*p], t.XYZ[3*p+1], t.XYZ[3*p+2]
			l.insert(j, neighbor{findneighbor.DistSq(qx, qy, qz, x, y, z), dist[n*kq+c], x, y, z, t.ID[p]})
		}
	}
	return nil
}

// insert offers e to query j's k nearest.
func (l *Leftovers) insert(j int, e neighbor) {
	b := l.best[j]
	if len(b) == l.k && !e.before(b[l.k-1]) {
		return
	}
	i := len(b)
	for i > 0 && e.before(b[i-1]) {
		i--
	}
	if i > 0 && b[i-1].id == e.id {
		return // offered before
	}
	if b == nil {
		b = make([]neighbor, 0, l.k) // k, no more (LeftoverBytes)
	}
	if len(b) < l.k {
		b = append(b, neighbor{})
	}
	copy(b[i+1:], b[i:])
	b[i] = e
	l.best[j] = b
}

// Moments returns the moments of each query's k nearest offered (fewer
// where the cloud has fewer other points), summed as the in-memory index
// sums them.
func (l *Leftovers) Moments() []findneighbor.Moment {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make([]findneighbor.Moment, len(l.id))
	for j, b := range l.best {
		qx, qy, qz := l.xyz[3*j], l.xyz[3*j+1], l.xyz[3*j+2]
		for _, e := range b {
			m[j].AddNearest(e.x, e.y, e.z, qx, qy, qz, e.dist)
		}
	}
	return m
}
