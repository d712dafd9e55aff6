package stage

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/algos/density"
	"github.com/pctk/pctk/core"
)

func init() {
	Register(&Stage{
		Name:  "density",
		PDAL:  "filters.radialdensity",
		Usage: "write each point's RadialDensity, points within a radius per unit volume (PDAL filters.radialdensity)",
		Description: `Adds RadialDensity (float64): the points within --radius R (a finite number > 0),
itself included, over the sphere's volume 4/3·π·R³, as PDAL computes it (docs/density.md).`,
		Examples:    []string{"pctk density scan.las out.las --radius 1"},
		Options:     []*Option{&Option{Kind: Float, Name: "radius", PDAL: "radius", Usage: "sphere radius in coordinate units (required)", DefaultText: "none"}},
		IgnoreClass: true, Tiled: true,
		Params: map[string]string{"radius": "radius"},
		Prepare: func(c Values) (*Job, error) {
			opts := density.RadialOptions{Radius: c.Float64("radius")}
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			// The local stage is Beam's; the counts kernels keep memory,
			// tiles and out of core (with their summary line).
			l := &Local{Columns: []core.Dimension{{Name: core.DimRadialDensity, Type: core.Float64}}, Halo: opts.Radius, XYZOnly: true,
				Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
					o := opts
					o.Build = in.Build
					d, err := density.Radial(in.XYZ, in.Backend, o)
					if err != nil {
						return nil, nil, err
					}
					return []*core.Attribute{core.NewColumn(core.DimRadialDensity, d)}, constReach(len(d), opts.Radius), nil
				}}
			return &Job{Local: l, Compute: func(p *Points) (*Result, error) {
				opts.Build, opts.TileSize = p.Build, p.TileSize
				opts.Build.Reuse = true // the index may keep p.XYZ: nothing else needs it
				d, err := density.Radial(p.XYZ, p.Backend, opts)
				if err != nil {
					return nil, err
				}
				st := newDensityStats(d)
				return &Result{Columns: []*core.Attribute{core.NewColumn(core.DimRadialDensity, d)}, JSON: st,
					Lines: []string{fmt.Sprintf("RadialDensity within %g: %s", opts.Radius, st)}}, nil
			}, Stream: &Streamed{Halo: opts.Radius, Run: func(s *StreamRun) (*StreamResult, error) {
				hist, err := s.StreamCounts(opts.Radius, "", nil)
				if err != nil {
					return nil, err
				}
				f := density.RadialFactor(opts.Radius)
				value := func(c uint32) float64 { return float64(c+1) * f }
				st := countStats(hist, value)
				return &StreamResult{Columns: countColumn(s, core.DimRadialDensity, math.NaN(), value), JSON: st,
					Lines: []string{fmt.Sprintf("RadialDensity within %g: %s", opts.Radius, st)}}, nil
			}}}, nil
		},
	})
}
