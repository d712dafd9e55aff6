package normals

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/algos/internal/eigen"
)

// orientToward flips each defined normal so that it points toward +Z (up)
// or toward the viewpoint vp: n·(vp - p) ≥ 0. A normal orthogonal to the
// reference direction keeps its sign.
func orientToward(r *Result, xyz []float32, vp [3]float64, up bool, workers int) {
	forBlocks(len(r.NormalX), parallelism(workers), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			n := r.normal(i)
			d := n[2]
			if !up {
				d = n[0]*(vp[0]-float64(xyz[3*i])) + n[1]*(vp[1]-float64(xyz[3*i+1])) + n[2]*(vp[2]-float64(xyz[3*i+2]))
			}
			if d < 0 {
				r.flip(i)
			}
		}
	})
}

func (r *Result) normal(i int) [3]float64 {
	return [3]float64{float64(r.NormalX[i]), float64(r.NormalY[i]), float64(r.NormalZ[i])}
}

func (r *Result) flip(i int) {
	r.NormalX[i], r.NormalY[i], r.NormalZ[i] = -r.NormalX[i], -r.NormalY[i], -r.NormalZ[i]
}

// orientConsistent orients the normals along a minimum spanning forest of
// the symmetric k-nearest-neighbour graph with edge weights 1 - |nᵢ·nⱼ|:
// nearly parallel neighbours are joined first, so a sign flips only across
// the tree's edges, where neighbouring tangent planes agree best (Hoppe et
// al., "Surface reconstruction from unorganized points", 1992).
//
// Prim's algorithm with an indexed binary heap grows one tree per connected
// component: O(N·k·log N) time, O(N·k) memory, each point visited once, so
// it always terminates. A point added to the tree takes the sign that agrees
// with its tree parent. The signs along a tree are fixed by the tree alone,
// so orienting the component's highest point up afterwards (flipping the
// whole component when its normal points down) gives what a traversal
// started from that point gives, as Open3D does. Points with NaN normals
// are left out of the graph.
//
// knn stores in nbr the k nearest of every point (other than itself,
// closest first, -1 beyond those found), as Index.KNearest(nil, ...) does.
func orientConsistent(r *Result, xyz []float32, k int, knn func(k int, nbr []int32) error) error {
	n := len(r.NormalX)
	if n < 2 {
		r.Components = n - r.Undefined
		orientToward(r, xyz, [3]float64{}, true, 1)
		return nil
	}
	k = min(k, n-1)
	nbr := make([]int32, n*k)
	if err := knn(k, nbr); err != nil {
		return fmt.Errorf("normals: orientation graph: %w", err)
	}
	g := symmetricGraph(nbr, k, func(i int32) bool { return !math.IsNaN(float64(r.NormalX[i])) })

	h := newIndexedHeap(n)
	parent := make([]int32, n)
	done := make([]bool, n)
	var comp []int32
	for s := range n {
		if done[s] || math.IsNaN(float64(r.NormalX[s])) {
			continue
		}
		r.Components++
		comp = comp[:0]
		top := int32(s)
		parent[s] = -1
		h.update(int32(s), 0)
		for h.len() > 0 {
			v := h.pop()
			done[v] = true
			nv := r.normal(int(v))
			if p := parent[v]; p >= 0 && eigen.Dot(r.normal(int(p)), nv) < 0 {
				r.flip(int(v))
				nv = [3]float64{-nv[0], -nv[1], -nv[2]}
			}
			comp = append(comp, v)
			if xyz[3*v+2] > xyz[3*top+2] {
				top = v
			}
			for _, u := range g.adj[g.off[v]:g.off[v+1]] {
				if done[u] {
					continue
				}
				w := float32(1 - math.Abs(eigen.Dot(nv, r.normal(int(u)))))
				if h.update(u, w) {
					parent[u] = v
				}
			}
		}
		if r.NormalZ[top] < 0 {
			for _, v := range comp {
				r.flip(int(v))
			}
		}
	}
	return nil
}

// graph is an undirected graph in CSR form: the neighbours of v are
// adj[off[v]:off[v+1]].
type graph struct {
	off []int64
	adj []int32
}

// symmetricGraph builds the undirected graph with an edge i-j wherever j is
// among the k nearest of i (nbr, -1 for none) or i among those of j, keeping
// only vertices for which keep is true. An edge found from both ends is
// stored twice, which Prim's algorithm does not mind.
func symmetricGraph(nbr []int32, k int, keep func(int32) bool) graph {
	n := 0
	if k > 0 {
		n = len(nbr) / k
	}
	off := make([]int64, n+1)
	for i := range n {
		if !keep(int32(i)) {
			continue
		}
		for _, j := range nbr[i*k : (i+1)*k] {
			if j >= 0 && keep(j) {
				off[i+1]++
				off[j+1]++
			}
		}
	}
	for i := range n {
		off[i+1] += off[i]
	}
	adj := make([]int32, off[n])
	fill := append([]int64(nil), off[:n]...)
	for i := range n {
		if !keep(int32(i)) {
			continue
		}
		for _, j := range nbr[i*k : (i+1)*k] {
			if j >= 0 && keep(j) {
				adj[fill[i]] = j
				fill[i]++
				adj[fill[j]] = int32(i)
				fill[j]++
			}
		}
	}
	return graph{off: off, adj: adj}
}

// indexedHeap is a binary min-heap of vertices keyed by float32, with
// decrease-key: pos[v] is v's place in heap, or -1 when v is not in it.
// Its size never exceeds the number of vertices.
type indexedHeap struct {
	key  []float32
	pos  []int32
	heap []int32
}

func newIndexedHeap(n int) *indexedHeap {
	h := &indexedHeap{key: make([]float32, n), pos: make([]int32, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *indexedHeap) len() int { return len(h.heap) }

// update inserts v with key k, or lowers v's key to k; it reports whether v
// was inserted or its key lowered.
func (h *indexedHeap) update(v int32, k float32) bool {
	p := h.pos[v]
	if p < 0 {
		p = int32(len(h.heap))
		h.heap = append(h.heap, v)
		h.pos[v] = p
	} else if k >= h.key[v] {
		return false
	}
	h.key[v] = k
	h.up(int(p))
	return true
}

// pop removes and returns the vertex of smallest key.
func (h *indexedHeap) pop() int32 {
	v := h.heap[0]
	last := len(h.heap) - 1
	h.swap(0, last)
	h.heap = h.heap[:last]
	h.pos[v] = -1
	if last > 0 {
		h.down(0)
	}
	return v
}

func (h *indexedHeap) less(i, j int) bool {
	a, b := h.heap[i], h.heap[j]
	// Ties go to the smaller vertex, so the forest is deterministic.
	return h.key[a] < h.key[b] || (h.key[a] == h.key[b] && a < b)
}

func (h *indexedHeap) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.pos[h.heap[i]] = int32(i)
	h.pos[h.heap[j]] = int32(j)
}

func (h *indexedHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *indexedHeap) down(i int) {
	n := len(h.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			return
		}
		h.swap(i, c)
		i = c
	}
}
