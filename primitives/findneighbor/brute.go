package findneighbor

import (
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

func init() { Register(bruteBackend{}) }

// Brute returns the "brute" backend: every query is compared with every
// indexed point, O(N·M), in parallel over queries. It is the reference every
// other backend is tested against and the baseline of the benchmarks; its
// priority is 0, so "auto" never prefers it.
func Brute() Backend { return bruteBackend{} }

type bruteBackend struct{}

func (bruteBackend) Name() string { return "brute" }

func (bruteBackend) Probe() (Info, error) {
	return HostInfo("brute", "all pairs, O(N·M)", 0), nil
}

// Build keeps a copy of xyz; it does no other work.
func (bruteBackend) Build(xyz []float32, eps float32, opts BuildOptions) (Index, error) {
	if err := checkBuild(xyz, eps); err != nil {
		return nil, err
	}
	return &bruteIndex{xyz: slices.Clone(xyz), eps: eps, epsSq: eps * eps, opts: opts}, nil
}

type bruteIndex struct {
	xyz   []float32
	eps   float32
	epsSq float32
	opts  BuildOptions
}

func (b *bruteIndex) Len() int     { return len(b.xyz) / 3 }
func (b *bruteIndex) Eps() float32 { return b.eps }
func (b *bruteIndex) Close() error { return nil }

func (b *bruteIndex) infEps() bool { return math.IsInf(float64(b.eps), 1) }

// each calls fn for every indexed point j within ε of query i (skipping i
// itself when self), in increasing j order.
func (b *bruteIndex) each(qs []float32, i int, self bool, fn func(j int, d2 float32)) {
	qx, qy, qz := hostkit.Point(qs, i)
	xyz := b.xyz
	for j := 0; j < len(xyz)/3; j++ {
		p := xyz[3*j : 3*j+3 : 3*j+3]
		d2 := distSq(qx, qy, qz, p[0], p[1], p[2])
		if d2 <= b.epsSq && (!self || j != i) {
			fn(j, d2)
		}
	}
}

// queries returns the query coordinates, whether they are the indexed
// points, and their number.
func (b *bruteIndex) queries(q []float32) ([]float32, bool, int, error) {
	nq, err := numQueries(q, b.Len())
	if q == nil {
		return b.xyz, true, nq, err
	}
	return q, false, nq, err
}

func (b *bruteIndex) Counts(q []float32, out []uint32) error {
	qs, self, nq, err := b.queries(q)
	if err != nil {
		return err
	}
	if err := checkLen("out", len(out), nq); err != nil {
		return err
	}
	if b.infEps() {
		return hostkit.ErrInfEps
	}
	return b.counts(qs, self, nq, out)
}

// counts is Counts on validated queries and a finite ε.
func (b *bruteIndex) counts(qs []float32, self bool, nq int, out []uint32) error {
	return hostkit.Parallel(nq, hostkit.Workers(b.opts.Workers), b.opts.Progress, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			var n uint32
			b.each(qs, i, self, func(int, float32) { n++ })
			out[i] = n
		}
		return nil
	})
}

// nearest collects into kb the k nearest of query i within ε (k < 0: all),
// in distance order unless !sorted and k < 0.
func (b *bruteIndex) nearest(kb *hostkit.KBest, qs []float32, i int, self bool, k int, sorted bool) {
	if k < 0 {
		k = math.MaxInt
	}
	kb.Reset(k)
	b.each(qs, i, self, func(j int, d2 float32) { kb.Add(hostkit.Kent{Key: hostkit.KentKey(d2, int32(j))}) })
	kb.Finish(sorted)
}

func (b *bruteIndex) KNearest(q []float32, k int, idx []int32, dist []float32) error {
	qs, self, nq, err := b.queries(q)
	if err != nil {
		return err
	}
	if err := checkKNearest(nq, k, idx, dist); err != nil || k == 0 {
		return err
	}
	nw := hostkit.Workers(b.opts.Workers)
	scratch := make([]hostkit.KBest, nw)
	return hostkit.Parallel(nq, nw, b.opts.Progress, func(w, lo, hi int) error {
		kb := &scratch[w]
		for i := lo; i < hi; i++ {
			b.nearest(kb, qs, i, self, k, true)
			var d []float32
			if dist != nil {
				d = dist[i*k : (i+1)*k]
			}
			hostkit.StoreKNearest(kb.C, idx[i*k:(i+1)*k], d)
		}
		return nil
	})
}

func (b *bruteIndex) Moments(q []float32, k int, out []Moment) error {
	qs, self, nq, err := b.queries(q)
	if err != nil {
		return err
	}
	if err := checkMoments(nq, k, out); err != nil {
		return err
	}
	if k == 0 && b.infEps() {
		return hostkit.ErrInfEps
	}
	nw := hostkit.Workers(b.opts.Workers)
	scratch := make([]hostkit.KBest, nw)
	return hostkit.Parallel(nq, nw, b.opts.Progress, func(w, lo, hi int) error {
		kb := &scratch[w]
		for i := lo; i < hi; i++ {
			qx, qy, qz := hostkit.Point(qs, i)
			if k == 0 {
				var m Moment
				b.each(qs, i, self, func(j int, _ float32) { m.addOffset(b.xyz[3*j], b.xyz[3*j+1], b.xyz[3*j+2], qx, qy, qz) })
				out[i] = m
				continue
			}
			b.nearest(kb, qs, i, self, k, true)
			out[i] = moment(b.xyz, qx, qy, qz, kb.C)
		}
		return nil
	})
}

func (b *bruteIndex) Neighbors(q []float32, opts NeighborOptions) (*CSR, error) {
	qs, self, nq, err := b.queries(q)
	if err != nil {
		return nil, err
	}
	if b.infEps() {
		return nil, hostkit.ErrInfEps
	}
	counts := make([]uint32, nq)
	if err := b.counts(qs, self, nq, counts); err != nil {
		return nil, err
	}
	csr, err := newCSR(counts, opts)
	if err != nil {
		return nil, err
	}
	k := -1
	if opts.Cap > 0 {
		k = opts.Cap
	}
	nw := hostkit.Workers(b.opts.Workers)
	scratch := make([]hostkit.KBest, nw)
	err = hostkit.Parallel(nq, nw, b.opts.Progress, func(w, lo, hi int) error {
		kb := &scratch[w]
		for i := lo; i < hi; i++ {
			b.nearest(kb, qs, i, self, k, opts.Sorted)
			hostkit.FillList(csr.Indices, csr.Dist, csr.Offsets[i], kb.C, opts.Sorted)
		}
		return nil
	})
	return csr, err
}

func (b *bruteIndex) ClusterCores(isCore []bool, label []int32) error {
	n := b.Len()
	if err := checkClusterCores(n, isCore, label); err != nil {
		return err
	}
	if b.infEps() {
		return hostkit.ErrInfEps
	}
	uf := hostkit.NewUnionFind(n)
	nw := hostkit.Workers(b.opts.Workers)
	err := hostkit.Parallel(n, nw, nil, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if !isCore[i] {
				continue
			}
			b.each(b.xyz, i, true, func(j int, _ float32) {
				if j > i && isCore[j] {
					uf.Union(int32(i), int32(j))
				}
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return hostkit.Parallel(n, nw, nil, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if isCore[i] {
				label[i] = uf.Find(int32(i))
				continue
			}
			best := hostkit.Cand{D2: float32(math.Inf(1)), Idx: -1}
			b.each(b.xyz, i, true, func(j int, d2 float32) {
				if c := (hostkit.Cand{D2: d2, Idx: int32(j)}); isCore[j] && c.Before(best) {
					best = c
				}
			})
			label[i] = -1
			if best.Idx >= 0 {
				label[i] = uf.Find(best.Idx)
			}
		}
		return nil
	})
}
