package synth

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pctk/pctk/core"
)

func TestValidate(t *testing.T) {
	for _, o := range []Options{{}, {Points: -1}, {Points: 10, Extent: -1}, {Points: 10, Extent: math.Inf(1)}, {Points: 10, Clusters: 11}} {
		if _, err := Uniform(o); err == nil {
			t.Errorf("Uniform(%+v): no error", o)
		}
	}
}

// TestDeterministic checks that a scene depends on its options only: the
// same seed gives the same bits with 1 or many goroutines, another seed
// another cloud, and the count is exact.
func TestDeterministic(t *testing.T) {
	for _, gen := range []struct {
		name string
		f    func(Options) (*core.Cloud, error)
	}{{"uniform", Uniform}, {"blobs", Blobs}, {"street", Street}} {
		t.Run(gen.name, func(t *testing.T) {
			o := Options{Points: 3*blockSize + 17, Seed: 7}
			a, err := gen.f(o)
			if err != nil {
				t.Fatal(err)
			}
			if a.Len() != o.Points {
				t.Fatalf("got %d points, want %d", a.Len(), o.Points)
			}
			prev := runtime.GOMAXPROCS(1)
			b, _ := gen.f(o)
			runtime.GOMAXPROCS(prev)
			if !sameCloud(a, b) {
				t.Error("one goroutine gave another cloud than many")
			}
			o.Seed = 8
			c, _ := gen.f(o)
			if slices.Equal(a.X, c.X) {
				t.Error("seeds 7 and 8 gave the same X")
			}
		})
	}
}

func sameCloud(a, b *core.Cloud) bool {
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.Y, b.Y) || !slices.Equal(a.Z, b.Z) || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i := range a.Attrs {
		if fmt.Sprint(a.Attrs[i].Data) != fmt.Sprint(b.Attrs[i].Data) {
			return false
		}
	}
	return true
}

func TestUniformBounds(t *testing.T) {
	c, err := Uniform(Options{Points: 1000, Extent: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Bounds()
	for i := range 3 {
		if b.Min[i] < 0 || b.Max[i] > 5 || b.Max[i]-b.Min[i] < 4.5 {
			t.Errorf("axis %d spans [%g, %g], want most of [0, 5]", i, b.Min[i], b.Max[i])
		}
	}
}

// TestBlobsLabels checks the ground truth of Blobs: 5% noise, the rest in
// equal clusters whose points lie near their own centre.
func TestBlobsLabels(t *testing.T) {
	const n, k = 20000, 4
	c, err := Blobs(Options{Points: n, Clusters: k, Extent: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	obj := c.Attr(core.DimObjectID).Data.([]int64)
	count := map[int64]int{}
	var sum [k][3]float64
	for i, o := range obj {
		count[o]++
		if o >= 0 {
			sum[o][0] += c.X[i]
			sum[o][1] += c.Y[i]
			sum[o][2] += c.Z[i]
		}
	}
	if got := float64(count[Noise]) / n; math.Abs(got-blobNoise) > 0.002 {
		t.Errorf("noise share %.4f, want %.2f", got, blobNoise)
	}
	for o := range int64(k) {
		if count[o] < n*(1-blobNoise)/k-1 || count[o] > n*(1-blobNoise)/k+1 {
			t.Errorf("cluster %d has %d points, want %g", o, count[o], n*(1-blobNoise)/k)
		}
	}
	// Within 5 standard deviations (sigma 1 here) of the centroid: all
	// points of a Gaussian cluster but a handful.
	far := 0
	for i, o := range obj {
		if o < 0 {
			continue
		}
		m := sum[o]
		d := math.Hypot(math.Hypot(c.X[i]-m[0]/float64(count[o]), c.Y[i]-m[1]/float64(count[o])), c.Z[i]-m[2]/float64(count[o]))
		if d > 5 {
			far++
		}
	}
	if far > 5 {
		t.Errorf("%d cluster points farther than 5 sigma from their centroid", far)
	}
}

// TestStreetLabels checks the street scene's ground truth: every class is
// present, noise is labelled as such and lies off the surfaces, and no two
// objects (ground and noise aside) come within gapMin of each other, so
// that a clustering with a smaller ε separates them.
func TestStreetLabels(t *testing.T) {
	c, err := Street(Options{Points: 200_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cls := c.Attr(core.DimClassification).Data.([]uint8)
	obj := c.Attr(core.DimObjectID).Data.([]int64)
	perClass := map[uint8]int{}
	objects := map[int64]bool{}
	for i := range cls {
		perClass[cls[i]]++
		objects[obj[i]] = true
		noise := cls[i] == ClassLowNoise || cls[i] == ClassHighNoise
		if noise != (obj[i] == Noise) {
			t.Fatalf("point %d: class %d with object %d", i, cls[i], obj[i])
		}
		if cls[i] == ClassLowNoise && c.Z[i] >= ground(c.X[i], c.Y[i]) {
			t.Fatalf("low noise point %d above the ground", i)
		}
	}
	for _, k := range []uint8{ClassGround, ClassBuilding, ClassHighVeg, ClassVehicle, ClassTower, ClassWireConductor, ClassLowNoise, ClassHighNoise} {
		if perClass[k] == 0 {
			t.Errorf("no point of class %d", k)
		}
	}
	if g := float64(perClass[ClassGround]) / float64(c.Len()); math.Abs(g-shareGround/0.965) > 0.01 {
		t.Errorf("ground share %.3f, want about %.3f", g, shareGround/0.965)
	}
	if len(objects) < 20 {
		t.Errorf("%d objects, want a street's worth", len(objects))
	}

	// Cells of gapMin: points of two objects closer than gapMin lie in
	// neighbouring cells.
	type key [3]int
	cells := map[key][]int{}
	for i := range obj {
		if obj[i] > 0 {
			k := key{int(math.Floor(c.X[i] / gapMin)), int(math.Floor(c.Y[i] / gapMin)), int(math.Floor(c.Z[i] / gapMin))}
			cells[k] = append(cells[k], i)
		}
	}
	// Surface range noise can bring two surfaces closer by a few of its
	// standard deviations.
	const tol = gapMin - 6*surfaceNoise
	for k, pts := range cells {
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for dz := -1; dz <= 1; dz++ {
					for _, j := range cells[key{k[0] + dx, k[1] + dy, k[2] + dz}] {
						for _, i := range pts {
							if obj[i] != obj[j] && math.Hypot(math.Hypot(c.X[i]-c.X[j], c.Y[i]-c.Y[j]), c.Z[i]-c.Z[j]) < tol {
								t.Fatalf("objects %d and %d meet at points %d and %d", obj[i], obj[j], i, j)
							}
						}
					}
				}
			}
		}
	}
}
