package stage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

func init() {
	Register(&Stage{
		Name:  "features",
		PDAL:  "filters.covariancefeatures",
		Usage: "write covariance features of each point's neighbourhood (PDAL filters.covariancefeatures)",
		Description: `Adds PDAL's covariance features (float64) of the point and its --knn K
nearest, or of the points within --radius R (at least --min-k, itself
counted). --features: names, "dimensionality" (Linearity, Planarity,
Scattering, Verticality; the default) or "all" (also Omnivariance, Anisotropy,
Eigenentropy, EigenvalueSum, SurfaceVariation, DemantkeVerticality). --mode:
sqrt (default), raw or normalized eigenvalues. Skipped points get 0, as in
PDAL (docs/features.md).`,
		Examples: []string{"pctk features scan.las out.las --knn 10 --features all"},
		Options: []*Option{
			&Option{Kind: Int, Name: "knn", PDAL: "knn", Usage: "neighbours besides the point itself (PDAL knn)"},
			&Option{Kind: Float, Name: "radius", PDAL: "radius", Usage: "neighbourhood radius in coordinate units, instead of --knn"},
			&Option{Kind: Int, Name: "min-k", PDAL: "min_k", Usage: "with --radius, the fewest points that get features", Value: features.DefaultMinK},
			&Option{Kind: String, Name: "mode", PDAL: "mode", Usage: "sqrt, raw or normalized", Value: "sqrt"},
			&Option{Kind: String, Name: "features", PDAL: "feature_set", Usage: "names, dimensionality or all", Value: "dimensionality"},
		},
		IgnoreClass: true, Tiled: true,
		Params: map[string]string{"k": "knn", "radius": "radius", "min_k": "min-k"},
		Prepare: func(c Values) (*Job, error) {
			opts := features.Options{K: c.Int("knn"), Radius: c.Float64("radius"), MinK: c.Int("min-k")}
			var err, ferr error
			opts.Mode, err = features.ParseMode(c.String("mode"))
			opts.Features, ferr = features.ParseFeatures(c.String("features"))
			switch { // 0 is "not given" to the algorithm, out of range when given
			case c.IsSet("knn") == c.IsSet("radius"):
				return nil, Usagef("features needs --knn K or --radius R, one of them")
			case err != nil || ferr != nil:
				return nil, Usagef("%v", errors.Join(err, ferr))
			case c.IsSet("knn") && opts.K == 0:
				return nil, findneighbor.CheckMin("features", "k", 0, 1)
			case c.IsSet("radius") && opts.Radius == 0:
				return nil, findneighbor.CheckRadius("features", "radius", 0, false)
			}
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			// Moments, as for normals, where the cpu backend measured faster.
			return &Job{CPUWork: true, Local: featuresLocal(opts), Compute: func(p *Points) (*Result, error) {
				warnClamped("knn", opts.K, max(p.Len()-1, 0), "other point")
				opts.Build, opts.TileSize = p.Build, p.TileSize
				r, err := features.Compute(p.XYZ, p.Backend, opts)
				if err != nil {
					return nil, err
				}
				res := &Result{Columns: featureColumns(r)}
				res.Lines, res.JSON = featuresSummary(opts, r.Features, p.Len(), r.Skipped)
				return res, nil
			}, Stream: &Streamed{Halo: opts.Radius, KNN: opts.K, Moments: true, Run: func(s *StreamRun) (*StreamResult, error) {
				return streamFeatures(s, opts)
			}}}, nil
		},
	})
}

// featuresLocal is features as a local stage (Beam's; memory, tiles and
// out of core keep their moments paths, which add the summary): the
// moments of each point's neighbourhood (localMoments), turned into
// features as they come (Options.FromMoments).
func featuresLocal(opts features.Options) *Local {
	fs := opts.FromMoments(nil).Features
	dims := make([]core.Dimension, len(fs))
	for j, f := range fs {
		dims[j] = core.Dimension{Name: f.String(), Type: core.Float64}
	}
	return &Local{Columns: dims, Halo: opts.Radius, KNN: opts.K, Moments: opts.Radius > 0, XYZOnly: true,
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			r := &features.Result{Features: fs, Values: make([][]float64, len(fs))}
			for c := range fs {
				r.Values[c] = make([]float64, len(in.XYZ)/3)
			}
			reach, err := localMoments("features", in, opts.Radius, opts.K, func(pts []int32, m []findneighbor.Moment) {
				v := opts.FromMoments(m)
				for j, i := range pts {
					for c := range fs {
						r.Values[c][i] = v.Values[c][j]
					}
				}
			})
			return featureColumns(r), reach, err
		}}
}

// featureColumns returns the columns of r.
func featureColumns(r *features.Result) []*core.Attribute {
	cols := make([]*core.Attribute, len(r.Features))
	for j, f := range r.Features {
		cols[j] = core.NewColumn(f.String(), r.Values[j])
	}
	return cols
}

// featuresSummary returns the summary lines and JSON of a features run.
func featuresSummary(opts features.Options, fs []features.Feature, points, skipped int) ([]string, map[string]any) {
	names := make([]string, len(fs))
	for j, f := range fs {
		names[j] = f.String()
	}
	return []string{fmt.Sprintf("%s (%s) of %d points; %d skipped (0, as in PDAL)", strings.Join(names, ", "), opts.Mode, points, skipped)},
		map[string]any{"features": names, "mode": opts.Mode.String(), "skipped": skipped}
}

// streamFeatures is pctk features out of core: each point's moments, tile
// by tile (StreamRun.StreamMoments: all within the radius, or the k
// nearest in rounds), turned into features as they come
// (Options.FromMoments), the values stored with the tiles.
func streamFeatures(s *StreamRun, opts features.Options) (*StreamResult, error) {
	// A k beyond the cloud: the rounds end with all there is.
	warnClamped("knn", opts.K, max(int(s.N)-1, 0), "other point")
	fs := opts.FromMoments(nil).Features
	var skipped atomic.Int64
	err := s.StreamMoments("features", opts.Radius, opts.K, 8*len(fs), func(m []findneighbor.Moment, _ []float32, dst []byte) {
		r := opts.FromMoments(m)
		skipped.Add(int64(r.Skipped))
		for j := range m {
			for c := range fs {
				binary.LittleEndian.PutUint64(dst[8*(len(fs)*j+c):], math.Float64bits(r.Values[c][j]))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	rd := s.OwnedReader("features", 8*len(fs))
	lines, doc := featuresSummary(opts, fs, int(s.N), int(skipped.Load()))
	return &StreamResult{
		Columns: func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
			r := &features.Result{Features: fs, Values: make([][]float64, len(fs))}
			for c := range fs {
				r.Values[c] = make([]float64, len(rows))
			}
			for i, id := range rows {
				if id < 0 { // left out: NaN, as the runner scatters columns
					for c := range fs {
						r.Values[c][i] = math.NaN()
					}
					continue
				}
				v, err := rd.Next(owners[i], id)
				if err != nil {
					return nil, err
				}
				for c := range fs {
					r.Values[c][i] = math.Float64frombits(binary.LittleEndian.Uint64(v[8*c:]))
				}
			}
			return featureColumns(r), nil
		},
		Lines: lines, JSON: doc,
	}, nil
}
