package normals

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// torus samples a u×v grid on the torus of radii big and small about the Z
// axis through c, with outward normals.
func torus(c [3]float64, big, small float64, nu, nv int) surface {
	s := surface{name: "torus"}
	for i := range nu {
		u := 2 * math.Pi * float64(i) / float64(nu)
		for j := range nv {
			v := 2 * math.Pi * (float64(j) + 0.5*float64(i%2)) / float64(nv)
			n := [3]float64{math.Cos(v) * math.Cos(u), math.Cos(v) * math.Sin(u), math.Sin(v)}
			p := [3]float64{c[0] + big*math.Cos(u) + small*n[0], c[1] + big*math.Sin(u) + small*n[1], c[2] + small*n[2]}
			s.add(nil, p, n, 0, true)
		}
	}
	return s
}

// concat joins surfaces into one cloud.
func concat(ss ...surface) surface {
	var out surface
	for _, s := range ss {
		out.name += s.name + "+"
		out.xyz = append(out.xyz, s.xyz...)
		out.normal = append(out.normal, s.normal...)
		out.check = append(out.check, s.check...)
	}
	return out
}

// countAgainst counts defined normals of r with n·want < 0.
func countAgainst(r *Result, want [][3]float64) int {
	bad := 0
	for i, w := range want {
		if d := eigen.Dot(r.normal(i), w); d < 0 || math.IsNaN(d) {
			bad++
		}
	}
	return bad
}

// TestOrientConsistent checks that MST propagation orients closed surfaces
// all outward (the highest point of each component faces up, and outward
// is up there), on one sphere, two disjoint spheres, a noisy sphere and a
// torus, and that the result does not depend on the order of the points.
func TestOrientConsistent(t *testing.T) {
	const seed = 5
	rng := rand.New(rand.NewPCG(seed, 6))
	cases := []struct {
		s     surface
		opts  Options
		comps int
	}{
		{sphere(rng, [3]float64{0, 0, 0}, 1, 3000, 0), Options{K: 10}, 1},
		{sphere(rng, [3]float64{5, 1, -2}, 1, 3000, 0.002), Options{K: 20, OrientK: 6}, 1},
		{concat(sphere(rng, [3]float64{0, 0, 0}, 1, 1500, 0), sphere(rng, [3]float64{3, 0, 0}, 0.5, 1500, 0)), Options{K: 10}, 2},
		{torus([3]float64{1, 1, 1}, 1, 0.35, 120, 48), Options{K: 12}, 1},
		{torus([3]float64{1, 1, 1}, 1, 0.35, 120, 48), Options{Radius: 0.12}, 1},
	}
	for _, b := range fntest.Usable(t) {
		for ci, c := range cases {
			opts := c.opts
			opts.Orient = OrientConsistent
			r, err := Estimate(c.s.xyz, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			if bad := countAgainst(r, c.s.normal); bad != 0 || r.Components != c.comps {
				t.Errorf("%s case %d %s: %d of %d normals point inward, %d components; want 0 and %d (seed %d)",
					b.Name(), ci, c.s.name, bad, len(c.s.normal), r.Components, c.comps, seed)
			}
			// The same cloud reversed must get the same normals.
			n := len(c.s.normal)
			rev := make([]float32, 0, 3*n)
			for i := n - 1; i >= 0; i-- {
				rev = append(rev, c.s.xyz[3*i:3*i+3]...)
			}
			rr, err := Estimate(rev, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if eigen.Dot(r.normal(i), rr.normal(n-1-i)) < 0 {
					t.Errorf("%s case %d %s: point %d oriented differently when the cloud is reversed", b.Name(), ci, c.s.name, i)
					break
				}
			}
		}
	}
}

// TestOrientConsistentIsolated checks that points without a normal stay
// out of the graph and that a lone pair of normals is still oriented up.
func TestOrientConsistentIsolated(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := plane(rng, [3]float64{0, 0, 0}, unit([3]float64{0.3, 0, -1}), 0.05, 0)
	s.xyz = append(s.xyz, 100, 100, 100)
	s.normal = append(s.normal, [3]float64{})
	for _, b := range fntest.Usable(t) {
		r, err := Estimate(s.xyz, b, Options{Radius: 0.2, Orient: OrientConsistent})
		if err != nil {
			t.Fatal(err)
		}
		last := len(s.normal) - 1
		if r.Undefined != 1 || !math.IsNaN(float64(r.NormalZ[last])) || r.Components != 1 {
			t.Errorf("%s: %d undefined, %d components, lone point's normal %v; want 1, 1, NaN", b.Name(), r.Undefined, r.Components, r.normal(last))
		}
		for i := range last {
			if r.NormalZ[i] <= 0 {
				t.Fatalf("%s: point %d normal %v, want the plane's normal oriented up", b.Name(), i, r.normal(i))
			}
		}
	}
}

// TestOrientToward checks up and viewpoint orientation on a sphere:
// up makes every NormalZ ≥ 0; a viewpoint at the centre turns every normal
// inward, one far above turns the upper half outward.
func TestOrientToward(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	c := [3]float64{1, -1, 2}
	s := sphere(rng, c, 1, 2000, 0)
	inward := make([][3]float64, len(s.normal))
	for i, n := range s.normal {
		inward[i] = [3]float64{-n[0], -n[1], -n[2]}
	}
	for _, b := range fntest.Usable(t) {
		r, err := Estimate(s.xyz, b, Options{K: 10, Orient: OrientUp})
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.NormalZ {
			if r.NormalZ[i] < 0 {
				t.Fatalf("%s up: point %d normal %v points down", b.Name(), i, r.normal(i))
			}
		}
		r, err = Estimate(s.xyz, b, Options{K: 10, Orient: OrientViewpoint, Viewpoint: c})
		if err != nil {
			t.Fatal(err)
		}
		if bad := countAgainst(r, inward); bad != 0 {
			t.Errorf("%s viewpoint at the centre: %d of %d normals point outward, want 0", b.Name(), bad, len(inward))
		}
		r, err = Estimate(s.xyz, b, Options{K: 10, Orient: OrientViewpoint, Viewpoint: [3]float64{c[0], c[1], c[2] + 1e6}})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range s.normal {
			// Points with n_z > 0.05 (3°, above the sphere's 2° error bound)
			// see a viewpoint 1e6 above: outward.
			if n[2] > 0.05 && eigen.Dot(r.normal(i), n) < 0 {
				t.Fatalf("%s viewpoint above: point %d (true normal %v) got %v", b.Name(), i, n, r.normal(i))
			}
		}
	}
}

func TestIndexedHeap(t *testing.T) {
	const seed = 3
	rng := rand.New(rand.NewPCG(seed, 3))
	const n = 500
	h := newIndexedHeap(n)
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(math.Inf(1))
	}
	for range 3000 {
		v := int32(rng.IntN(n))
		k := rng.Float32()
		lowered := h.update(v, k)
		if lowered != (k < want[v]) {
			t.Fatalf("update(%d, %g) = %v with key %g (seed %d)", v, k, lowered, want[v], seed)
		}
		want[v] = min(want[v], k)
	}
	prev := float32(-1)
	for h.len() > 0 {
		v := h.pop()
		if h.key[v] != want[v] || h.key[v] < prev {
			t.Fatalf("pop = %d with key %g after %g, want ascending keys equal to the minimum pushed %g (seed %d)", v, h.key[v], prev, want[v], seed)
		}
		prev = h.key[v]
		want[v] = float32(math.Inf(1))
	}
	for v, k := range want {
		if !math.IsInf(float64(k), 1) {
			t.Fatalf("vertex %d with key %g never popped (seed %d)", v, k, seed)
		}
	}
}
