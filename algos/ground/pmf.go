package ground

import (
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// PMFOptions configure PMF. The zero value is PDAL's filters.pmf with its
// defaults; a zero field takes PDAL's default.
type PMFOptions struct {
	// CellSize is the raster's cell size (PDAL's cell_size, default 1).
	CellSize float64
	// Linear grows the window linearly, cell·(4·(k+1)+1), instead of
	// exponentially, cell·(2^(k+1)+1) (PDAL's exponential = false; its
	// default is true).
	Linear bool
	// InitialDistance is the height threshold of the first window (PDAL's
	// initial_distance, default 0.15).
	InitialDistance float64
	// MaxDistance caps the height threshold (PDAL's max_distance, default
	// 2.5).
	MaxDistance float64
	// MaxWindowSize ends the windows: the last is the first not below it
	// (PDAL's max_window_size, default 33).
	MaxWindowSize float64
	// Slope raises the threshold with the window (PDAL's slope, default 1).
	Slope float64
	// Ignore lists classes left as they are, taking no part (PDAL's ignore
	// ranges over Classification).
	Ignore []uint8
	// Returns selects the returns classified (PDAL's returns; zero:
	// "last, only").
	Returns Returns
	// Pos, Grid and PDALFrame are as in SMRFOptions.
	Pos       []float64
	Grid      *Grid
	PDALFrame bool
}

// withDefaults returns o with zero fields replaced by PDAL's defaults.
func (o PMFOptions) withDefaults() PMFOptions {
	orDefault(&o.CellSize, 1)
	orDefault(&o.InitialDistance, 0.15)
	orDefault(&o.MaxDistance, 2.5)
	orDefault(&o.MaxWindowSize, 33)
	orDefault(&o.Slope, 1)
	return o
}

// Validate reports whether the options make sense, naming the option as
// PDAL does in a *findneighbor.ParamError.
func (o PMFOptions) Validate() error {
	o = o.withDefaults()
	return checkAll(
		findneighbor.CheckRadius("pmf", "cell_size", o.CellSize, false),
		findneighbor.CheckRadius("pmf", "max_window_size", o.MaxWindowSize, false),
		findneighbor.CheckFloat("pmf", "initial_distance", o.InitialDistance),
		findneighbor.CheckFloat("pmf", "max_distance", o.MaxDistance),
		findneighbor.CheckFloat("pmf", "slope", o.Slope),
		checkGrid("pmf", o.Grid),
		checkFrame("pmf", o.PDALFrame, o.Pos),
	)
}

// pmfWindows returns PMFFilter::processGround's windows: for each, the
// opening's radius in cells (int(0.5·(ws−1)), ws the window in the
// coordinates' units, as PDAL computes it) and the height threshold.
func pmfWindows(o PMFOptions) (iters []int, ht []float64) {
	var ws []float64
	for w := 0.0; w < o.MaxWindowSize; {
		k := len(ws)
		if o.Linear {
			w = o.CellSize * (2.0*float64(k+1)*2 + 1.0)
		} else {
			w = o.CellSize * (2.0*math.Pow(2, float64(k)) + 1.0)
		}
		h := o.InitialDistance
		if k > 0 {
			h = o.Slope*(w-ws[k-1])*o.CellSize + o.InitialDistance
		}
		if h > o.MaxDistance {
			h = o.MaxDistance
		}
		ws = append(ws, w)
		ht = append(ht, h)
		iters = append(iters, int(0.5*(w-1)))
	}
	return iters, ht
}

// PMF classifies the points of xyz into ground and no ground as PDAL's
// filters.pmf does (filters/PMFFilter.cpp, PMFFilter::run and
// processGround; K. Zhang et al., "A progressive morphological filter for
// removing nonground measurements from airborne LIDAR data", IEEE TGRS
// 41(4), 2003): the minimum surface of the selected points (cells taken as
// PDAL takes them there, int(floor(x−minx)/cell)), each empty cell given
// its nearest filled cell's value, then openings of growing windows, each
// of the last one's result, a point staying ground while it lies less than
// the window's height threshold above the opened surface.
func PMF(xyz []float32, a Attrs, opts PMFOptions) (Result, error) {
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	opts = opts.withDefaults()
	cell := opts.CellSize
	// PMFFilter::processGround floors the offset before dividing by the
	// cell (and truncates the quotient) for the minimum surface only.
	minCell := func(dx, dy float64) (int, int) {
		return int(math.Floor(dx) / cell), int(math.Floor(dy) / cell)
	}
	st, err := newSetup(xyz, a, opts.Pos, opts.Ignore, opts.Returns, opts.Grid, cell, opts.PDALFrame, minCell)
	if err != nil {
		return Result{}, err
	}
	ras, pos := st.ras, st.pos
	z := ras.minimum(pos, st.mcells)
	fillReach := st.fill(z, 1)

	iters, ht := pmfWindows(opts)
	ground := make([]bool, len(pos)/3)
	for i, c := range st.cells {
		ground[i] = c >= 0
	}
	depth := 0
	for j, it := range iters {
		ras.erode(z, it)
		ras.dilate(z, it)
		depth += 2 * it
		for i, c := range st.cells {
			if ground[i] && !(pos[3*i+2]-z[c] < ht[j]) {
				ground[i] = false
			}
		}
	}

	var dep []float64
	if !st.pdal {
		dep = ras.widen(fillReach, depth)
		for i := range dep {
			// A cell of the minimum surface holds points up to one unit
			// beyond it in X and Y (the floor before the division).
			dep[i] = ras.clip(i/ras.rows, i%ras.rows, dep[i]+math.Sqrt2/cell)
		}
	}
	return st.result(a, dep, func(i, _ int) bool { return ground[i] }), nil
}
