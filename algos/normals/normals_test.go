package normals

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/eigen/eigentest"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// surface is a sampled analytic surface: points, their true unit normals
// (outward for closed surfaces) and which points to check (those whose
// neighbourhoods are not cut by the patch's border).
type surface struct {
	name   string
	xyz    []float32
	normal [][3]float64
	check  []bool
}

// add appends point p + σ·noise·n (noise along the normal) with normal n.
func (s *surface) add(rng *rand.Rand, p, n [3]float64, sigma float64, check bool) {
	g := 0.0
	if sigma > 0 {
		g = rng.NormFloat64() * sigma
	}
	for k := range 3 {
		s.xyz = append(s.xyz, float32(p[k]+g*n[k]))
	}
	s.normal = append(s.normal, n)
	s.check = append(s.check, check)
}

func unit(v [3]float64) [3]float64 {
	l := math.Sqrt(eigen.Dot(v, v))
	return [3]float64{v[0] / l, v[1] / l, v[2] / l}
}

// patch samples a jittered grid of side 1 with spacing h in the plane
// through c with unit normal n, and maps each grid point with fn, which
// returns the surface point and its normal. Points within margin of the
// border are not checked.
func patch(rng *rand.Rand, name string, c, n [3]float64, h, sigma, margin float64, fn func(p [3]float64) ([3]float64, [3]float64)) surface {
	u, v := eigen.OrthoBasis(n)
	s := surface{name: name}
	m := int(1 / h)
	for i := range m {
		for j := range m {
			a := (float64(i)+0.3*rng.Float64())*h - 0.5
			b := (float64(j)+0.3*rng.Float64())*h - 0.5
			p := [3]float64{c[0] + a*u[0] + b*v[0], c[1] + a*u[1] + b*v[1], c[2] + a*u[2] + b*v[2]}
			q, nq := fn(p)
			s.add(rng, q, nq, sigma, max(math.Abs(a), math.Abs(b)) < 0.5-margin)
		}
	}
	return s
}

// plane samples a square of side 1 with spacing h, centre c, normal n.
func plane(rng *rand.Rand, c, n [3]float64, h, sigma float64) surface {
	return patch(rng, "plane", c, n, h, sigma, 0, func(p [3]float64) ([3]float64, [3]float64) { return p, n })
}

// sphereCap projects a square patch centrally onto the sphere of radius r
// that touches the square's centre c from the side opposite to n.
func sphereCap(rng *rand.Rand, c, n [3]float64, r, h, sigma float64) surface {
	o := [3]float64{c[0] - r*n[0], c[1] - r*n[1], c[2] - r*n[2]}
	return patch(rng, "sphere cap", c, n, h, sigma, 0.1, func(p [3]float64) ([3]float64, [3]float64) {
		d := unit([3]float64{p[0] - o[0], p[1] - o[1], p[2] - o[2]})
		return [3]float64{o[0] + r*d[0], o[1] + r*d[1], o[2] + r*d[2]}, d
	})
}

// cylinderPatch bends a square patch onto the cylinder of radius r whose
// axis, through c - r·n, is the patch's first tangent direction.
func cylinderPatch(rng *rand.Rand, c, n [3]float64, r, h, sigma float64) surface {
	axis, _ := eigen.OrthoBasis(n)
	o := [3]float64{c[0] - r*n[0], c[1] - r*n[1], c[2] - r*n[2]}
	return patch(rng, "cylinder patch", c, n, h, sigma, 0.1, func(p [3]float64) ([3]float64, [3]float64) {
		d := [3]float64{p[0] - o[0], p[1] - o[1], p[2] - o[2]}
		t := eigen.Dot(d, axis)
		radial := unit([3]float64{d[0] - t*axis[0], d[1] - t*axis[1], d[2] - t*axis[2]})
		return [3]float64{o[0] + t*axis[0] + r*radial[0], o[1] + t*axis[1] + r*radial[1], o[2] + t*axis[2] + r*radial[2]}, radial
	})
}

// sphere samples a Fibonacci spiral of n points on the sphere of radius r
// centred at c: a closed surface.
func sphere(rng *rand.Rand, c [3]float64, r float64, n int, sigma float64) surface {
	s := surface{name: "sphere"}
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := range n {
		z := 1 - (2*float64(i)+1)/float64(n)
		rho := math.Sqrt(1 - z*z)
		th := golden * float64(i)
		d := [3]float64{rho * math.Cos(th), rho * math.Sin(th), z}
		s.add(rng, [3]float64{c[0] + r*d[0], c[1] + r*d[1], c[2] + r*d[2]}, d, sigma, true)
	}
	return s
}

// angleDeg returns the angle in degrees between r's normal i and n,
// ignoring sign when unoriented. It uses atan2(|a×b|, a·b): acos of a dot
// product of float32 unit vectors would report 0.01° for parallel ones.
func angleDeg(r *Result, i int, n [3]float64, unoriented bool) float64 {
	a := r.normal(i)
	c := eigen.Cross(a, n)
	d := eigen.Dot(a, n)
	if unoriented {
		d = math.Abs(d)
	}
	return math.Atan2(math.Sqrt(eigen.Dot(c, c)), d) * 180 / math.Pi
}

// randomDirs returns m random unit vectors plus the three axes, which are
// the special cases of the eigen-solver.
func randomDirs(rng *rand.Rand, m int) [][3]float64 {
	dirs := [][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for range m {
		dirs = append(dirs, unit([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}))
	}
	return dirs
}

// TestAnalyticSurfaces checks unoriented normals against the true ones.
// Tolerances, in degrees:
//   - noise-free planes: 1e-3°, what float32 coordinates (≈5e-7 at 10 m)
//     allow over a neighbourhood ≈0.05 wide;
//   - noise-free curved patches (radius 2, spacing 0.02): the PCA plane of a
//     neighbourhood whose centroid sits δ off the point tilts by about δ/R;
//     jitter and K's cut make δ up to half a spacing (0.01/2 rad = 0.29°),
//     typically a quarter: median ≤ 0.1°, max ≤ 0.35°;
//   - noise σ = 2% of the spacing along the normal: the tilt is about
//     σ/(rms neighbour distance·√K) ≈ 0.15° (σ_tilt), whose Rayleigh
//     median is ≈0.2°: median ≤ 0.35°, max over ~2,500 points ≤ 1.5°;
//   - the closed sphere of 3,000 points (spacing 0.065 at R = 1) has no
//     border but δ/R reaches 1°: median ≤ 1°, max ≤ 2°.
//
// Only points whose neighbourhoods the border does not cut are checked.
func TestAnalyticSurfaces(t *testing.T) {
	const seed = 42
	rng := rand.New(rand.NewPCG(seed, 3))
	type tc struct {
		s              surface
		opts           Options
		medDeg, maxDeg float64
	}
	const h = 0.02
	var cases []tc
	for _, n := range randomDirs(rng, 12) {
		c := [3]float64{rng.Float64() * 10, rng.Float64() * 10, rng.Float64()}
		cases = append(cases,
			tc{plane(rng, c, n, h, 0), Options{K: 20}, 1e-3, 1e-3},
			tc{plane(rng, c, n, h, 0), Options{Radius: 2.5 * h}, 1e-3, 1e-3},
			tc{plane(rng, c, n, h, 0.02*h), Options{K: 20, Radius: 5 * h}, 0.35, 1.5},
		)
	}
	for _, n := range randomDirs(rng, 4) {
		c := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		cases = append(cases,
			tc{sphereCap(rng, c, n, 2, h, 0), Options{K: 16}, 0.1, 0.35},
			tc{sphereCap(rng, c, n, 2, h, 0), Options{Radius: 2.5 * h}, 0.1, 0.35},
			tc{sphereCap(rng, c, n, 2, h, 0.02*h), Options{K: 20}, 0.35, 1.5},
			tc{cylinderPatch(rng, c, n, 2, h, 0), Options{K: 16}, 0.1, 0.35},
			tc{cylinderPatch(rng, c, n, 2, h, 0.02*h), Options{K: 20, Radius: 5 * h}, 0.35, 1.5},
		)
	}
	cases = append(cases,
		tc{sphere(rng, [3]float64{1, 2, 3}, 1, 3000, 0), Options{K: 10}, 1, 2},
		tc{sphere(rng, [3]float64{1, 2, 3}, 1, 3000, 0), Options{Radius: 0.12}, 1, 2},
	)
	for _, b := range fntest.Usable(t) {
		for ci, c := range cases {
			r, err := Estimate(c.s.xyz, b, c.opts)
			if err != nil {
				t.Fatalf("%s %s: %v", b.Name(), c.s.name, err)
			}
			var angles []float64
			for i, n := range c.s.normal {
				if c.s.check[i] {
					angles = append(angles, angleDeg(r, i, n, true))
				}
			}
			slices.Sort(angles)
			med, worst := angles[len(angles)/2], angles[len(angles)-1]
			if r.Undefined != 0 || math.IsNaN(worst) || worst > c.maxDeg || med > c.medDeg {
				t.Errorf("%s case %d %s %+v: median %.4g°, max %.4g° over %d points (want ≤ %g°, %g°), %d undefined (seed %d)",
					b.Name(), ci, c.s.name, c.opts, med, worst, len(angles), c.medDeg, c.maxDeg, r.Undefined, seed)
			}
		}
	}
}

// TestNeighbourhoodConvention recomputes every normal by brute force with
// PCL's and Open3D's neighbourhood (the point and its K-1 nearest others,
// or every point within the radius, the point included) and the Jacobi
// reference, and compares normals, curvature and eigenvalues.
func TestNeighbourhoodConvention(t *testing.T) {
	const seed = 9
	rng := rand.New(rand.NewPCG(seed, 4))
	const n = 600
	xyz := make([]float32, 3*n)
	for i := range n {
		// A bumpy sheet, so normals vary and eigenvalues are distinct.
		x, y := rng.Float64(), rng.Float64()
		xyz[3*i], xyz[3*i+1], xyz[3*i+2] = float32(x), float32(y), float32(0.1*math.Sin(6*x)*math.Cos(5*y)+0.01*rng.NormFloat64())
	}
	for _, b := range fntest.Usable(t) {
		for _, opts := range []Options{{K: 8}, {K: 3}, {Radius: 0.08}, {K: 12, Radius: 0.06}} {
			opts.Eigenvalues = true
			r, err := Estimate(xyz, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				vals, vecs, ok := bruteNormal(xyz, i, opts)
				if !ok {
					if !math.IsNaN(float64(r.NormalX[i])) || !math.IsNaN(float64(r.Curvature[i])) {
						t.Fatalf("%s %+v point %d: got normal %v, want NaN (fewer than 3 points)", b.Name(), opts, i, r.normal(i))
					}
					continue
				}
				gap := (vals[1] - vals[0]) / vals[2]
				if a := angleDeg(r, i, vecs[0], true); gap > 1e-3 && a > 1e-2 {
					t.Fatalf("%s %+v point %d: normal %v is %.3g° from %v", b.Name(), opts, i, r.normal(i), a, vecs[0])
				}
				curv := vals[0] / (vals[0] + vals[1] + vals[2])
				if d := math.Abs(float64(r.Curvature[i]) - curv); d > 1e-6 {
					t.Fatalf("%s %+v point %d: curvature %.9g, want %.9g", b.Name(), opts, i, r.Curvature[i], curv)
				}
				for j := range 3 {
					if d := math.Abs(float64(r.Eigenvalues[j][i]) - vals[j]); d > 1e-6*vals[2] {
						t.Fatalf("%s %+v point %d: λ%d = %.9g, want %.9g", b.Name(), opts, i, j, r.Eigenvalues[j][i], vals[j])
					}
				}
			}
		}
	}
}

// bruteNormal is the reference: the point and its neighbours by the
// definition, covariance in float64 about the centroid, Jacobi.
func bruteNormal(xyz []float32, i int, o Options) (vals [3]float64, vecs [3][3]float64, ok bool) {
	type nb struct {
		d2 float64
		j  int
	}
	var all []nb
	p := func(j int) [3]float64 {
		return [3]float64{float64(xyz[3*j]), float64(xyz[3*j+1]), float64(xyz[3*j+2])}
	}
	for j := range len(xyz) / 3 {
		d := p(j)
		q := p(i)
		// Distances as the backends compare them: float32.
		dx, dy, dz := float32(d[0]-q[0]), float32(d[1]-q[1]), float32(d[2]-q[2])
		d2 := dx*dx + dy*dy + dz*dz
		if o.Radius > 0 && d2 > float32(o.Radius)*float32(o.Radius) {
			continue
		}
		all = append(all, nb{float64(d2), j})
	}
	slices.SortFunc(all, func(a, b nb) int {
		if a.d2 != b.d2 {
			if a.d2 < b.d2 {
				return -1
			}
			return 1
		}
		return a.j - b.j
	})
	if o.K > 0 && len(all) > o.K {
		all = all[:o.K]
	}
	if len(all) < 3 {
		return vals, vecs, false
	}
	var mean [3]float64
	for _, e := range all {
		q := p(e.j)
		for k := range 3 {
			mean[k] += q[k] / float64(len(all))
		}
	}
	var c eigen.Sym3
	for _, e := range all {
		q := p(e.j)
		d := [3]float64{q[0] - mean[0], q[1] - mean[1], q[2] - mean[2]}
		c = eigen.Sym3{c[0] + d[0]*d[0], c[1] + d[0]*d[1], c[2] + d[0]*d[2], c[3] + d[1]*d[1], c[4] + d[1]*d[2], c[5] + d[2]*d[2]}
	}
	for k := range c {
		c[k] /= float64(len(all))
	}
	vals, vecs = eigentest.Jacobi(c)
	return vals, vecs, true
}

// TestDegenerate covers neighbourhoods that define no plane or a poor one.
func TestDegenerate(t *testing.T) {
	line := []float32{}
	for i := range 20 {
		line = append(line, float32(i)*0.1, float32(i)*0.2, float32(i)*0.3)
	}
	same := slices.Repeat([]float32{1, 2, 3}, 10)
	twoApart := []float32{0, 0, 0, 0.01, 0, 0, 5, 5, 5, 5, 5.01, 5}
	for _, b := range fntest.Usable(t) {
		// A line: any normal orthogonal to it will do, but it must be one.
		r, err := Estimate(line, b, Options{K: 5})
		if err != nil {
			t.Fatal(err)
		}
		dir := unit([3]float64{1, 2, 3})
		for i := range 20 {
			n := r.normal(i)
			if l := math.Sqrt(eigen.Dot(n, n)); math.Abs(l-1) > 1e-6 || math.Abs(eigen.Dot(n, dir)) > 1e-4 {
				t.Errorf("%s line point %d: normal %v (length %g, ·direction %g), want a unit vector ⊥ the line", b.Name(), i, n, l, eigen.Dot(n, dir))
			}
			if r.Curvature[i] != 0 && r.Curvature[i] > 1e-6 {
				t.Errorf("%s line point %d: curvature %g, want 0", b.Name(), i, r.Curvature[i])
			}
		}
		// Coincident points: a unit normal, curvature 0.
		r, err = Estimate(same, b, Options{K: 4})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			n := r.normal(i)
			if l := math.Sqrt(eigen.Dot(n, n)); math.Abs(l-1) > 1e-6 || r.Curvature[i] != 0 {
				t.Errorf("%s coincident point %d: normal %v, curvature %g; want a unit normal and 0", b.Name(), i, n, r.Curvature[i])
			}
		}
		// Two pairs far apart: 2 points per neighbourhood within the radius;
		// a cloud of 2 points has 2 per neighbourhood whatever K says.
		r, err = Estimate(twoApart, b, Options{Radius: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Undefined != 4 {
			t.Errorf("%s pairs, radius 1: %d undefined, want 4", b.Name(), r.Undefined)
		}
		for i := range 4 {
			if !math.IsNaN(float64(r.NormalX[i])) || !math.IsNaN(float64(r.Curvature[i])) {
				t.Errorf("%s pairs, radius 1, point %d: normal %v curvature %g, want NaN", b.Name(), i, r.normal(i), r.Curvature[i])
			}
		}
		r, err = Estimate(twoApart[:6], b, Options{K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Undefined != 2 {
			t.Errorf("%s two points, k 3: %d undefined, want 2", b.Name(), r.Undefined)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Options{
		{},
		{Radius: math.Inf(1)},
		{Radius: -1},
		{Radius: math.NaN()},
		{K: 2},
		{K: -1},
		{K: 5, Orient: 9},
		{K: 5, Orient: OrientViewpoint, Viewpoint: [3]float64{math.NaN(), 0, 0}},
		{K: 5, OrientK: -2},
	}
	for _, o := range bad {
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
	good := []Options{{K: 3}, {Radius: 0.1}, {K: 30, Radius: 1}, {K: 30, Radius: math.Inf(1)}, {K: 10, Orient: OrientConsistent, OrientK: 5}}
	for _, o := range good {
		if err := o.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", o, err)
		}
	}
	for _, name := range []string{"none", "up", "Viewpoint", "CONSISTENT"} {
		o, err := ParseOrientation(name)
		if err != nil || !strings.EqualFold(o.String(), name) {
			t.Errorf("ParseOrientation(%q) = %v, %v", name, o, err)
		}
	}
	if _, err := ParseOrientation("outward"); err == nil {
		t.Error(`ParseOrientation("outward") = nil error, want one`)
	}
}

// TestInvariants runs awkward random clouds (duplicates, lines, planes,
// tiny and large extents, far from the origin) through every backend and
// checks what must hold for every point: with K ≥ 3 and at least 3 points
// nothing is NaN; normals are unit vectors; 0 ≤ λ0 ≤ λ1 ≤ λ2; the curvature
// is λ0/(λ0+λ1+λ2) in [0, 1/3].
func TestInvariants(t *testing.T) {
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, 12))
	gens := []struct {
		name string
		gen  func(i int) [3]float64
	}{
		{"duplicates", func(i int) [3]float64 { return [3]float64{float64(i % 5), float64(i % 3), 0} }},
		{"line", func(i int) [3]float64 { return [3]float64{float64(i), 2 * float64(i), -float64(i)} }},
		{"plane", func(int) [3]float64 { return [3]float64{rng.Float64(), rng.Float64(), 0} }},
		{"blob", func(int) [3]float64 { return [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()} }},
		{"tiny", func(int) [3]float64 {
			return [3]float64{1e-6 * rng.Float64(), 1e-6 * rng.Float64(), 1e-7 * rng.Float64()}
		}},
		{"far", func(int) [3]float64 {
			return [3]float64{1e4 + rng.Float64(), -1e4 + rng.Float64(), 1e3 + 0.01*rng.Float64()}
		}},
		{"two points repeated", func(i int) [3]float64 { return [3]float64{float64(i % 2), 0, 0} }},
	}
	for _, b := range fntest.Usable(t) {
		for _, g := range gens {
			const n = 300
			xyz := make([]float32, 0, 3*n)
			for i := range n {
				p := g.gen(i)
				xyz = append(xyz, float32(p[0]), float32(p[1]), float32(p[2]))
			}
			for _, k := range []int{3, 7, 40} {
				r, err := Estimate(xyz, b, Options{K: k, Eigenvalues: true, Orient: OrientConsistent})
				if err != nil {
					t.Fatal(err)
				}
				if r.Undefined != 0 {
					t.Errorf("%s %s k=%d: %d undefined, want 0", b.Name(), g.name, k, r.Undefined)
				}
				for i := range n {
					nv := r.normal(i)
					l0, l1, l2 := float64(r.Eigenvalues[0][i]), float64(r.Eigenvalues[1][i]), float64(r.Eigenvalues[2][i])
					c := float64(r.Curvature[i])
					want := 0.0
					if s := l0 + l1 + l2; s > 0 {
						want = l0 / s
					}
					if math.Abs(math.Sqrt(eigen.Dot(nv, nv))-1) > 1e-6 || !(0 <= l0 && l0 <= l1 && l1 <= l2) ||
						!(c >= 0 && c <= 1.0/3+1e-6) || math.Abs(c-want) > 1e-6 {
						t.Fatalf("%s %s k=%d point %d: normal %v, eigenvalues %g %g %g, curvature %g (seed %d)",
							b.Name(), g.name, k, i, nv, l0, l1, l2, c, seed)
					}
				}
			}
		}
	}
}
