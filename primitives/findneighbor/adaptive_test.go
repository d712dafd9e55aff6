package findneighbor_test

import (
	"math"
	"slices"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestKNearestAdaptiveExact checks KNearestAll, KNearestMoments and
// KNearestMomentsFarFunc against
// plain kNN (ε = +Inf) on brute force: the same indices (ties by the
// smaller index), distances and moments (to the bit) for every point, on clouds that
// force every path (far isolated points that need the radius doubled and
// the unbounded search, duplicates beyond k+1, flat and one-dimensional
// clouds, k beyond n), the later rounds' queries in one block and, on the
// brute backend, in blocks of 5 points.
func TestKNearestAdaptiveExact(t *testing.T) {
	const seed = 7
	r := fntest.Rand(seed)
	blobs := fntest.Clustered(r, 3000, 8, 100, 2)
	for i := range 12 {
		d := float32(math.Pow(4, float64(i)))
		blobs = append(blobs, d, -d, d/2)
	}
	dups := make([]float32, 0, 3*800)
	for range 800 {
		p := r.IntN(50)
		dups = append(dups, float32(p%7), float32(p/7), 0)
	}
	flat := make([]float32, 3*1000)
	for i := range 1000 {
		flat[3*i], flat[3*i+1] = r.Float32()*100, r.Float32()*3
	}
	line := func(xs ...float32) []float32 {
		var p []float32
		for _, x := range xs {
			p = append(p, x, 0, 0)
		}
		return p
	}
	clouds := []struct {
		name string
		xyz  []float32
	}{
		{"blobs and far points", blobs}, {"duplicates", dups}, {"flat", flat},
		{"line", line(0, 1, 3, 7, 15, 31, 63)}, {"coincident", line(2, 2, 2, 2)},
		{"one point", line(5)},
	}
	inf := float32(math.Inf(1))
	for _, run := range []struct {
		be    fn.Backend
		block int
	}{{fn.CPU(), 0}, {fn.Brute(), 0}, {fn.Brute(), 5}} {
		be := run.be
		if run.block > 0 {
			t.Cleanup(fn.SetMomentBlock(run.block)) // the last run
		}
		for _, c := range clouds {
			n := len(c.xyz) / 3
			ref, err := fn.Brute().Build(c.xyz, inf, fn.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 5, 50} {
				wi, wd, wm := make([]int32, n*k), make([]float32, n*k), make([]fn.Moment, n)
				gi, gd, gm := make([]int32, n*k), make([]float32, n*k), make([]fn.Moment, n)
				if err := ref.KNearest(nil, k, wi, wd); err != nil {
					t.Fatal(err)
				}
				if err := fn.Moments(ref, c.xyz, nil, k, wm); err != nil {
					t.Fatal(err)
				}
				xyz := slices.Clone(c.xyz)
				if err := fn.KNearestAll(be, xyz, k, fn.BuildOptions{}, gi, gd); err != nil {
					t.Fatal(err)
				}
				if err := fn.KNearestMoments(be, xyz, k, fn.BuildOptions{Reuse: true}, gm); err != nil {
					t.Fatal(err)
				}
				fm, far, seen := make([]fn.Moment, n), make([]float32, n), make([]int, n)
				err = fn.KNearestMomentsFarFunc(be, xyz, k, fn.BuildOptions{Reuse: true, Workers: 3}, func(pts []int32, m []fn.Moment, f []float32) {
					for j, i := range pts {
						fm[i], far[i] = m[j], f[j]
						seen[i]++ // each point once: no two calls share one
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(xyz, c.xyz) {
					t.Fatalf("%s, %s backend: the points changed", c.name, be.Name())
				}
				for i := range n {
					s := i * k
					if !slices.Equal(gi[s:s+k], wi[s:s+k]) || !slices.Equal(gd[s:s+k], wd[s:s+k]) {
						t.Fatalf("%s, k=%d, %s backend, seed %d: point %d: got %v at %v, want %v at %v", c.name, k, be.Name(), seed, i, gi[s:s+k], gd[s:s+k], wi[s:s+k], wd[s:s+k])
					}
					if gm[i] != wm[i] {
						t.Fatalf("%s, k=%d, %s backend, seed %d: point %d: got moments %+v, want %+v", c.name, k, be.Name(), seed, i, gm[i], wm[i])
					}
					if seen[i] != 1 || fm[i] != wm[i] || far[i] != wd[s+k-1] {
						t.Fatalf("%s, k=%d, %s backend, seed %d: KNearestMomentsFarFunc handed point %d over %d times, %+v far %g; want %+v far %g", c.name, k, be.Name(), seed, i, seen[i], fm[i], far[i], wm[i], wd[s+k-1])
					}
				}
			}
			ref.Close()
		}
	}
}

// TestKNearestQueriesExact holds KNearestQueries, on the cpu backend's
// kd-tree and in the brute backend's finite-radius rounds, to KNearest on
// an ε = +Inf index: queries on the points, between them and far away
// (which only the last, unbounded round reaches), over clouds of blobs,
// duplicates, a plane (as hag's ground, z = 0) and fewer points than k.
func TestKNearestQueriesExact(t *testing.T) {
	const seed = 8
	r := fntest.Rand(seed)
	blobs := fntest.Clustered(r, 2000, 6, 100, 2)
	plane := make([]float32, 3*1500)
	for i := range 1500 {
		plane[3*i], plane[3*i+1] = float32(r.IntN(60)), r.Float32()*40 // ties along x
	}
	dups := make([]float32, 0, 3*300)
	for range 300 {
		p := r.IntN(20)
		dups = append(dups, float32(p%5), float32(p/5), 0)
	}
	queries := func(xyz []float32) []float32 {
		var q []float32
		for i := 0; i < len(xyz)/3; i += 7 {
			q = append(q, xyz[3*i:3*i+3]...) // on a point
		}
		for range 400 {
			q = append(q, r.Float32()*120-10, r.Float32()*60-10, 0)
		}
		for i := range 10 {
			d := float32(math.Pow(5, float64(i)))
			q = append(q, d, -d, 0) // out to 2e6: beyond every round's radius
		}
		return q
	}
	clouds := []struct {
		name string
		xyz  []float32
	}{{"blobs", blobs}, {"plane", plane}, {"duplicates", dups}, {"three points", []float32{0, 0, 0, 1, 0, 0, 3, 0, 0}}}
	inf := float32(math.Inf(1))
	for _, be := range []fn.Backend{fn.CPU(), fn.Brute()} {
		for _, c := range clouds {
			q := queries(c.xyz)
			nq := len(q) / 3
			ref, err := fn.Brute().Build(c.xyz, inf, fn.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 4, 40} {
				wi, wd := make([]int32, nq*k), make([]float32, nq*k)
				gi, gd := make([]int32, nq*k), make([]float32, nq*k)
				if err := ref.KNearest(q, k, wi, wd); err != nil {
					t.Fatal(err)
				}
				xyz := slices.Clone(c.xyz)
				if err := fn.KNearestQueries(be, xyz, q, k, fn.BuildOptions{Workers: 3}, gi, gd); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(xyz, c.xyz) {
					t.Fatalf("%s, %s backend: the points changed", c.name, be.Name())
				}
				if !slices.Equal(gi, wi) || !slices.Equal(gd, wd) {
					for j := range nq {
						s := j * k
						if !slices.Equal(gi[s:s+k], wi[s:s+k]) || !slices.Equal(gd[s:s+k], wd[s:s+k]) {
							t.Fatalf("%s, k=%d, %s backend, seed %d: query %d %v: got %v at %v, want %v at %v", c.name, k, be.Name(), seed, j, q[3*j:3*j+3], gi[s:s+k], gd[s:s+k], wi[s:s+k], wd[s:s+k])
						}
					}
				}
				if err := fn.KNearestQueries(be, xyz, q, k, fn.BuildOptions{}, gi, nil); err != nil || !slices.Equal(gi, wi) {
					t.Fatalf("%s, k=%d, %s backend: without distances: %v, or other indices", c.name, k, be.Name(), err)
				}
			}
			ref.Close()
		}
		gi, gd := make([]int32, 2), make([]float32, 2)
		if err := fn.KNearestQueries(be, nil, []float32{1, 2, 3}, 2, fn.BuildOptions{}, gi, gd); err != nil ||
			!slices.Equal(gi, []int32{-1, -1}) || !math.IsInf(float64(gd[0]), 1) || !math.IsInf(float64(gd[1]), 1) {
			t.Fatalf("%s backend, no points: got %v at %v (%v), want -1s at +Inf", be.Name(), gi, gd, err)
		}
	}
}

// TestMomentsFuncMatchesMoments checks that MomentsFunc hands over, once
// per point, exactly what Moments(nil, k) stores: on the cpu backend's grid
// (radius and k nearest within it) and kd-tree (streamed from the workers)
// and on brute force (one Moments call, then blocks).
func TestMomentsFuncMatchesMoments(t *testing.T) {
	const seed = 25
	r := fntest.Rand(seed)
	xyz := fntest.Clustered(r, 5000, 6, 300, 3)
	n := len(xyz) / 3
	inf := float32(math.Inf(1))
	cases := []struct {
		be  fn.Backend
		eps float32
		k   int
	}{{fn.CPU(), 2.5, 0}, {fn.CPU(), 2.5, 7}, {fn.CPU(), inf, 7}, {fn.Brute(), 2.5, 0}, {fn.Brute(), 2.5, 7}}
	for _, c := range cases {
		ix, err := c.be.Build(xyz, c.eps, fn.BuildOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]fn.Moment, n)
		if err := fn.Moments(ix, xyz, nil, c.k, want); err != nil {
			t.Fatal(err)
		}
		got := make([]fn.Moment, n)
		seen := make([]int32, n)
		err = fn.MomentsFunc(ix, xyz, c.k, 3, func(pts []int32, m []fn.Moment) {
			for j, i := range pts {
				got[i] = m[j]
				seen[i]++ // each point once: no two calls share one
			}
		})
		ix.Close()
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for i := range n {
			total += int(want[i].N)
			if seen[i] != 1 || got[i] != want[i] {
				t.Fatalf("%s, ε %g, k %d: point %d handed over %d times, %+v, Moments stores %+v", c.be.Name(), c.eps, c.k, i, seen[i], got[i], want[i])
			}
		}
		if total < 5*n {
			t.Fatalf("%s, ε %g, k %d: %.1f neighbours per point, too few to tell the points apart", c.be.Name(), c.eps, c.k, float64(total)/float64(n))
		}
	}
}

// TestNearestMomentsFunc checks that NearestMomentsFunc hands over, once
// per point, what Moments(nil, k) stores and, as far, the last distance
// KNearest(nil, k) reports (+Inf for points with fewer than k within ε):
// on the cpu backend's kd-tree and grid and on brute force (which asks
// KNearest).
func TestNearestMomentsFunc(t *testing.T) {
	r := fntest.Rand(26)
	xyz := fntest.Clustered(r, 4000, 6, 300, 3)
	n := len(xyz) / 3
	const k = 7
	cases := []struct {
		be  fn.Backend
		eps float32
	}{{fn.CPU(), float32(math.Inf(1))}, {fn.CPU(), 1.5}, {fn.Brute(), 1.5}}
	for _, c := range cases {
		ix, err := c.be.Build(xyz, c.eps, fn.BuildOptions{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]fn.Moment, n)
		dist := make([]float32, n*k)
		if err := fn.Moments(ix, xyz, nil, k, want); err != nil {
			t.Fatal(err)
		}
		if err := ix.KNearest(nil, k, make([]int32, n*k), dist); err != nil {
			t.Fatal(err)
		}
		got := make([]fn.Moment, n)
		far := make([]float32, n)
		seen := make([]int32, n)
		err = fn.NearestMomentsFunc(ix, xyz, k, 3, func(pts []int32, m []fn.Moment, f []float32) {
			for j, i := range pts {
				got[i], far[i] = m[j], f[j]
				seen[i]++
			}
		})
		if err == nil {
			err = fn.NearestMomentsFunc(ix, xyz, 0, 3, func([]int32, []fn.Moment, []float32) {})
			if err == nil {
				t.Errorf("%s ε %g: NearestMomentsFunc with k = 0 gave no error", c.be.Name(), c.eps)
			}
			err = nil
		}
		ix.Close()
		if err != nil {
			t.Fatal(err)
		}
		short := 0
		for i := range n {
			if math.IsInf(float64(far[i]), 1) {
				short++
			}
			if seen[i] != 1 || got[i] != want[i] || far[i] != dist[i*k+k-1] {
				t.Fatalf("%s ε %g: point %d handed over %d times, %+v far %g; Moments stores %+v, KNearest's k-th is at %g", c.be.Name(), c.eps, i, seen[i], got[i], far[i], want[i], dist[i*k+k-1])
			}
		}
		if !math.IsInf(float64(c.eps), 1) && (short == 0 || short == n) {
			t.Fatalf("%s ε %g: %d of %d points found fewer than %d: pick an ε that tells them apart", c.be.Name(), c.eps, short, n, k)
		}
	}
}
