package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/pctk/pctk/core"
)

// Options are what every generator takes. The zero value is not valid:
// Points must be positive.
type Options struct {
	// Points is the number of points to make.
	Points int
	// Seed selects the scene; the same seed and options give the same cloud.
	Seed uint64
	// Extent is the side of the cube Uniform and Blobs fill, in cloud units;
	// 0 picks the cube root of Points (one point per unit³ on average).
	Extent float64
	// Clusters is the number of Gaussian clusters Blobs makes; 0 means 8,
	// or Points when fewer.
	Clusters int
}

// ErrOptions is wrapped by every error that [Options.Validate] returns.
var ErrOptions = errors.New("synth: invalid options")

// MaxPoints bounds Options.Points (the cloud's columns take about 50 bytes
// a point).
const MaxPoints = 1 << 31

// Validate reports whether o can make a cloud.
func (o Options) Validate() error {
	switch {
	case o.Points <= 0 || o.Points > MaxPoints:
		return fmt.Errorf("%w: points %d, want 1 to %d", ErrOptions, o.Points, MaxPoints)
	case o.Extent < 0 || math.IsNaN(o.Extent) || math.IsInf(o.Extent, 0):
		return fmt.Errorf("%w: extent %g, want a finite value >= 0 (0: automatic)", ErrOptions, o.Extent)
	case o.Clusters < 0 || o.Clusters > o.Points:
		return fmt.Errorf("%w: clusters %d, want 0 (automatic) to points (%d)", ErrOptions, o.Clusters, o.Points)
	}
	return nil
}

func (o Options) extent() float64 {
	if o.Extent > 0 {
		return o.Extent
	}
	return math.Cbrt(float64(o.Points))
}

// Noise is the ObjectID of points that belong to no object.
const Noise = -1

// ASPRS classification codes the street scene writes (LAS 1.4 R15, table
// 17), and the user-definable code it gives to cars.
const (
	ClassUnclassified  = 1
	ClassGround        = 2
	ClassHighVeg       = 5
	ClassBuilding      = 6
	ClassLowNoise      = 7
	ClassWireConductor = 14
	ClassTower         = 15
	ClassHighNoise     = 18
	ClassVehicle       = 64
)

// A part is a piece of a scene that is sampled on its own: a building, a
// tree, the ground. Its points get one object id; sample draws one point
// and returns its coordinates and its classification.
type part struct {
	share     float64 // relative number of points
	object    int64
	intensity [2]uint16 // uniform in [lo, hi]
	sample    func(r *rand.Rand) (x, y, z float64, class uint8)
}

// blockSize is how many points one random stream makes; a part larger than
// that is cut into blocks sampled concurrently.
const blockSize = 1 << 16

// makeCloud samples n points over parts, each part getting a number of
// points proportional to its share, and returns them with the attributes
// Classification, Intensity and ObjectID (those named in attrs).
func makeCloud(n int, seed uint64, parts []part, attrs ...string) *core.Cloud {
	counts := apportion(n, parts)
	c := core.New(n)
	cls := make([]uint8, n)
	inten := make([]uint16, n)
	obj := make([]int64, n)

	type job struct{ part, block, start, n int }
	var jobs []job
	at := 0
	for i, k := range counts {
		for b := 0; b*blockSize < k; b++ {
			jobs = append(jobs, job{i, b, at + b*blockSize, min(blockSize, k-b*blockSize)})
		}
		at += k
	}
	ch := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				p := &parts[j.part]
				r := rand.New(rand.NewPCG(seed, uint64(j.part)<<32|uint64(j.block)))
				span := int(p.intensity[1]) - int(p.intensity[0]) + 1
				for i := j.start; i < j.start+j.n; i++ {
					x, y, z, class := p.sample(r)
					c.X[i], c.Y[i], c.Z[i], cls[i] = mm(x), mm(y), mm(z), class
					inten[i] = p.intensity[0] + uint16(r.IntN(span))
					obj[i] = p.object
				}
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()

	for _, name := range attrs {
		switch name {
		case core.DimClassification:
			c.Attrs = append(c.Attrs, &core.Attribute{Name: name, Type: core.Uint8, Data: cls})
		case core.DimIntensity:
			c.Attrs = append(c.Attrs, &core.Attribute{Name: name, Type: core.Uint16, Data: inten})
		case core.DimReturnNumber, core.DimNumberOfReturns:
			one := make([]uint8, n)
			for i := range one {
				one[i] = 1
			}
			c.Attrs = append(c.Attrs, &core.Attribute{Name: name, Type: core.Uint8, Data: one})
		case core.DimObjectID:
			c.Attrs = append(c.Attrs, &core.Attribute{Name: name, Type: core.Int64, Data: obj})
		}
	}
	return c
}

// mm rounds a coordinate to a millimetre, as LiDAR files store them, so
// that a LAS writer keeps them exactly with a scale of 0.001.
func mm(v float64) float64 { return math.Round(v*1000) / 1000 }

// apportion splits n points over parts in proportion to their shares by
// the largest-remainder method (ties to the earlier part), so the counts add
// up to n exactly and depend on nothing but the shares.
func apportion(n int, parts []part) []int {
	total := 0.0
	for _, p := range parts {
		total += p.share
	}
	counts := make([]int, len(parts))
	rem := make([]float64, len(parts))
	left := n
	for i, p := range parts {
		exact := float64(n) * p.share / total
		counts[i] = int(exact)
		rem[i] = exact - float64(counts[i])
		left -= counts[i]
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		counts[best]++
		rem[best] = -1
	}
	return counts
}

// Uniform returns o.Points points uniform in the cube [0, Extent]³ (to the
// millimetre, as every generator rounds coordinates), with no
// attributes.
func Uniform(o Options) (*core.Cloud, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s := o.extent()
	cube := part{share: 1, object: Noise, sample: func(r *rand.Rand) (x, y, z float64, _ uint8) {
		return s * r.Float64(), s * r.Float64(), s * r.Float64(), ClassUnclassified
	}}
	return makeCloud(o.Points, o.Seed, []part{cube}), nil
}

// blobNoise is the share of Blobs' points spread uniformly as noise.
const blobNoise = 0.05

// Blobs returns o.Clusters isotropic Gaussian clusters in the cube
// [0, Extent)³ plus 5% uniform noise, with the ground truth as ObjectID
// (0..Clusters−1, Noise for the background). Each cluster's standard
// deviation is Extent/100 and centres are at least 10 standard deviations
// apart where the cube has room for that (the placement gives up after a
// fixed number of tries and takes the farthest candidate).
func Blobs(o Options) (*core.Cloud, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s, k := o.extent(), o.Clusters
	if k == 0 {
		k = min(8, o.Points)
	}
	sigma := s / 100
	r := rand.New(rand.NewPCG(o.Seed, math.MaxUint64))
	centres := make([][3]float64, 0, k)
	for len(centres) < k {
		var best [3]float64
		bestD := -1.0
		for range 64 {
			c := [3]float64{s * (0.1 + 0.8*r.Float64()), s * (0.1 + 0.8*r.Float64()), s * (0.1 + 0.8*r.Float64())}
			d := math.Inf(1)
			for _, o := range centres {
				d = min(d, math.Hypot(math.Hypot(c[0]-o[0], c[1]-o[1]), c[2]-o[2]))
			}
			if d > bestD {
				best, bestD = c, d
			}
			if d >= 10*sigma {
				break
			}
		}
		centres = append(centres, best)
	}
	parts := []part{{share: blobNoise * float64(k) / (1 - blobNoise), object: Noise, sample: func(r *rand.Rand) (x, y, z float64, _ uint8) {
		return s * r.Float64(), s * r.Float64(), s * r.Float64(), ClassUnclassified
	}}}
	for i, c := range centres {
		parts = append(parts, part{share: 1, object: int64(i), sample: func(r *rand.Rand) (x, y, z float64, _ uint8) {
			return c[0] + sigma*r.NormFloat64(), c[1] + sigma*r.NormFloat64(), c[2] + sigma*r.NormFloat64(), ClassUnclassified
		}})
	}
	return makeCloud(o.Points, o.Seed, parts, core.DimObjectID), nil
}
