package synth

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/pctk/pctk/core"
)

// The street scene's layout, in metres. The street runs along +x; the road
// is |y| < roadHalf, trees stand on the −y sidewalk, poles carrying three
// wires on the +y sidewalk, and buildings start at |y| = buildingY. Gaps
// between objects are at least gapMin, so that a clustering with ε below
// gapMin can separate every object once the ground is left out.
const (
	streetWidth = 25.0 // the ground spans |y| < streetWidth
	roadHalf    = 5.0
	buildingY   = 12.0
	treeY       = -7.0
	poleY       = 8.0
	poleHeight  = 9.0
	poleSpacing = 30.0
	gapMin      = 1.4
	// sceneLength is the street's length for up to scenePoints points;
	// larger clouds get a longer street at the same density.
	sceneLength = 120.0
	scenePoints = 1_000_000
	// surfaceNoise is the standard deviation of the range noise added to
	// every point of a surface.
	surfaceNoise = 0.01
)

// The street scene's share of points per kind of object.
const (
	shareGround    = 0.42
	shareBuildings = 0.28
	shareTrees     = 0.14
	shareCars      = 0.07
	sharePowerLine = 0.03
	shareScattered = 0.02
	shareOutliers  = 0.005
)

// ground is the terrain height: a 2% slope along the street with gentle
// undulation, and the road 12 cm below the sidewalks (the kerb).
func ground(x, y float64) float64 {
	z := 0.02*x + 0.2*math.Sin(2*math.Pi*x/60) + 0.15*math.Cos(2*math.Pi*y/45)
	if math.Abs(y) < roadHalf {
		z -= 0.12
	}
	return z
}

// box is an axis-aligned box; the street scene samples its walls and roof
// (never its floor) for buildings and cars.
type box struct{ x0, x1, y0, y1, z0, z1 float64 }

func (b box) contains(x, y float64) bool { return x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1 }

// surface returns a sampler of points uniform over b's roof and four walls
// by area, with range noise.
func (b box) surface(class uint8) func(r *rand.Rand) (x, y, z float64, c uint8) {
	dx, dy, dz := b.x1-b.x0, b.y1-b.y0, b.z1-b.z0
	roof, wallX, wallY := dx*dy, dx*dz, dy*dz
	total := roof + 2*wallX + 2*wallY
	return func(r *rand.Rand) (x, y, z float64, c uint8) {
		u, v, w := r.Float64(), r.Float64(), r.Float64()*total
		switch {
		case w < roof:
			x, y, z = b.x0+u*dx, b.y0+v*dy, b.z1
		case w < roof+wallX:
			x, y, z = b.x0+u*dx, b.y0, b.z0+v*dz
		case w < roof+2*wallX:
			x, y, z = b.x0+u*dx, b.y1, b.z0+v*dz
		case w < roof+2*wallX+wallY:
			x, y, z = b.x0, b.y0+u*dy, b.z0+v*dz
		default:
			x, y, z = b.x1, b.y0+u*dy, b.z0+v*dz
		}
		return jitter(r, x, y, z, class)
	}
}

func jitter(r *rand.Rand, x, y, z float64, class uint8) (float64, float64, float64, uint8) {
	return x + surfaceNoise*r.NormFloat64(), y + surfaceNoise*r.NormFloat64(), z + surfaceNoise*r.NormFloat64(), class
}

// street is the layout of one scene: everything the samplers need, drawn
// once from the layout's random stream.
type street struct {
	length    float64
	buildings []box // sorted by x0 within each side, +y side first
	split     int   // buildings[:split] are on the +y side
	trees     []tree
	cars      []box
	poles     [][2]float64 // x, base height
}

type tree struct {
	x, rh, rv, centre float64 // position, crown radii, crown centre height above ground
}

func layout(o Options) *street {
	r := rand.New(rand.NewPCG(o.Seed, math.MaxUint64-1))
	s := &street{length: sceneLength * max(1, float64(o.Points)/scenePoints)}
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	for side := 1.0; side >= -1; side -= 2 {
		for x := uniform(1, 4); ; {
			w := uniform(10, 20)
			if x+w > s.length-1 {
				break
			}
			depth := uniform(8, streetWidth-buildingY-1)
			y0, y1 := buildingY, buildingY+depth
			if side < 0 {
				y0, y1 = -y1, -y0
			}
			base := math.Min(ground(x, y0), ground(x+w, y1)) - 0.5
			s.buildings = append(s.buildings, box{x, x + w, y0, y1, base, base + uniform(6, 20)})
			x += w + uniform(3, 7)
		}
		if side > 0 {
			s.split = len(s.buildings)
		}
	}
	for x := 6.0; x < s.length-4; x += 12 {
		s.trees = append(s.trees, tree{x: x + uniform(-1.5, 1.5), rh: uniform(1.8, 2.8), rv: uniform(2, 2.6), centre: uniform(6, 7)})
	}
	for _, lane := range []float64{-2.5, 2.5} {
		for x := uniform(1, 4); ; {
			l := uniform(4, 5)
			if x+l > s.length-1 {
				break
			}
			if r.Float64() < 0.7 {
				base := ground(x+l/2, lane) + 0.3
				s.cars = append(s.cars, box{x, x + l, lane - 0.9, lane + 0.9, base, base + uniform(1.4, 1.7)})
			}
			x += l + uniform(2.5, 6)
		}
	}
	for x := 5.0; x <= s.length-5; x += poleSpacing {
		s.poles = append(s.poles, [2]float64{x, ground(x, poleY)})
	}
	return s
}

// inBuilding reports whether (x, y) lies in a building's footprint.
func (s *street) inBuilding(x, y float64) bool {
	if math.Abs(y) < buildingY {
		return false
	}
	side := s.buildings[:s.split]
	if y < 0 {
		side = s.buildings[s.split:]
	}
	i := sort.Search(len(side), func(i int) bool { return side[i].x0 > x }) - 1
	return i >= 0 && side[i].contains(x, y)
}

// Street returns a LiDAR-like street scene of o.Points points with ground
// truth: single returns (ReturnNumber and NumberOfReturns 1), Classification (ASPRS: 2 ground, 6 building, 5 high vegetation, 14
// wire conductor, 15 transmission tower for poles, 64 (user-defined) cars,
// 7 and 18 low and high noise), Intensity, and ObjectID (0 the ground, 1..
// one per building, tree, car and the power line with its poles, Noise for
// scattered noise and isolated outliers). The street is 120 m long for up
// to 1M points and grows with larger clouds at the same density.
func Street(o Options) (*core.Cloud, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s := layout(o)
	var parts []part
	add := func(share float64, intensity [2]uint16, sample func(r *rand.Rand) (x, y, z float64, c uint8)) {
		parts = append(parts, part{share: share, object: int64(len(parts)), intensity: intensity, sample: sample})
	}
	add(shareGround, [2]uint16{800, 3000}, func(r *rand.Rand) (x, y, z float64, c uint8) {
		for {
			x, y = s.length*r.Float64(), streetWidth*(2*r.Float64()-1)
			if !s.inBuilding(x, y) {
				return jitter(r, x, y, ground(x, y), ClassGround)
			}
		}
	})
	area := func(b box) float64 {
		return (b.x1-b.x0)*(b.y1-b.y0) + 2*(b.z1-b.z0)*((b.x1-b.x0)+(b.y1-b.y0))
	}
	// boxes adds one part per box, sharing share by the boxes' areas.
	boxes := func(bs []box, share float64, intensity [2]uint16, class uint8) {
		total := 0.0
		for _, b := range bs {
			total += area(b)
		}
		for _, b := range bs {
			add(share*area(b)/total, intensity, b.surface(class))
		}
	}
	boxes(s.buildings, shareBuildings, [2]uint16{3000, 6000}, ClassBuilding)
	for _, t := range s.trees {
		add(shareTrees/float64(len(s.trees)), [2]uint16{1000, 4000}, t.sampler())
	}
	boxes(s.cars, shareCars, [2]uint16{5000, 20000}, ClassVehicle)
	if len(s.poles) >= 2 {
		add(sharePowerLine, [2]uint16{500, 1500}, s.powerLine())
	}
	noise := func(share float64, lo, hi float64) {
		parts = append(parts, part{share: share, object: Noise, intensity: [2]uint16{0, 500}, sample: func(r *rand.Rand) (x, y, z float64, c uint8) {
			x, y = s.length*r.Float64(), streetWidth*(2*r.Float64()-1)
			g := ground(x, y)
			z = g + lo + (hi-lo)*r.Float64()
			if z < g {
				return x, y, z, ClassLowNoise
			}
			return x, y, z, ClassHighNoise
		}})
	}
	noise(shareScattered, -2, 25)
	noise(shareOutliers*0.7, 40, 80)
	noise(shareOutliers*0.3, -15, -5)
	return makeCloud(o.Points, o.Seed, parts, core.DimIntensity, core.DimReturnNumber, core.DimNumberOfReturns, core.DimClassification, core.DimObjectID), nil
}

// sampler returns points of a tree: 10% on the trunk (a cylinder of radius
// 15 cm from the ground to the crown) and 90% uniform in the crown, an
// ellipsoid, since laser pulses enter the foliage.
func (t tree) sampler() func(r *rand.Rand) (x, y, z float64, c uint8) {
	g := ground(t.x, treeY)
	bottom := g + t.centre - t.rv
	return func(r *rand.Rand) (x, y, z float64, c uint8) {
		if r.Float64() < 0.1 {
			a := 2 * math.Pi * r.Float64()
			return jitter(r, t.x+0.15*math.Cos(a), treeY+0.15*math.Sin(a), g+(bottom-g)*r.Float64(), ClassHighVeg)
		}
		for {
			u, v, w := 2*r.Float64()-1, 2*r.Float64()-1, 2*r.Float64()-1
			if u*u+v*v+w*w <= 1 {
				return t.x + t.rh*u, treeY + t.rh*v, g + t.centre + t.rv*w, ClassHighVeg
			}
		}
	}
}

// powerLine returns points of the poles (cylinders of radius 12 cm, 30% of
// the points) and the three wires between each pair of neighbouring poles,
// hung as parabolas sagging 0.6 m at mid-span.
func (s *street) powerLine() func(r *rand.Rand) (x, y, z float64, c uint8) {
	wires := [3][2]float64{{poleY - 0.4, -0.4}, {poleY, 0}, {poleY + 0.4, -0.4}} // y, height below the pole's top
	return func(r *rand.Rand) (x, y, z float64, c uint8) {
		if r.Float64() < 0.3 {
			p := s.poles[r.IntN(len(s.poles))]
			a := 2 * math.Pi * r.Float64()
			return jitter(r, p[0]+0.12*math.Cos(a), poleY+0.12*math.Sin(a), p[1]+poleHeight*r.Float64(), ClassTower)
		}
		i := r.IntN(len(s.poles) - 1)
		a, b := s.poles[i], s.poles[i+1]
		w := wires[r.IntN(3)]
		t := r.Float64()
		top := (1-t)*a[1] + t*b[1] + poleHeight + w[1]
		return jitter(r, (1-t)*a[0]+t*b[0], w[0], top-0.6*4*t*(1-t), ClassWireConductor)
	}
}
