package stage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pctk/pctk/algos/normals"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

func init() {
	Register(normalsFilter)
}

var normalsFilter = &Stage{
	Name:  "normals",
	PDAL:  "filters.normal",
	Usage: "estimate PCA surface normals and curvature, and orient them",
	Description: `Adds NormalX, NormalY, NormalZ and Curvature (float32; PLY nx ny nz, PCD
normal_x ..., LAS extra bytes) to every point, replacing existing columns of
those names. With --eigenvalues also Eigenvalue0..2 (λ0 ≤ λ1 ≤ λ2).

The neighbourhood of a point is, with --knn K, the point itself plus its K-1
nearest others (K counts as PCL's -k and Open3D's knn/max_nn do); with
--radius R, the point and every point within R; with both, the point and its
K-1 nearest others within R (Open3D's hybrid search). The normal is the eigenvector of the smallest eigenvalue of the
neighbourhood's covariance, the curvature λ0/(λ0+λ1+λ2). Points whose
neighbourhood has fewer than 3 points get NaN normals and curvature; the
summary counts them. A K larger than the cloud uses every point (with a
warning), as PCL and Open3D do. --radius is a finite number > 0 (0: none).

--orient up points normals toward +Z (airborne LiDAR); viewpoint toward
--viewpoint X,Y,Z (the sensor, in the file's coordinates; --viewpoint alone
implies it), by default a PCD file's VIEWPOINT as in PCL; consistent propagates one orientation along a minimum spanning
tree of the --orient-knn nearest-neighbour graph, the highest point of each
connected part facing up (for closed objects: outward); none keeps the
solver's arbitrary signs.

Non-finite coordinates are an error; with --keep-nan (organised PCD clouds,
whose missing pixels are NaN points) such points take no part and get NaN
normals, as in PCL; a cloud of NaN points alone gets NaN normals throughout.`,
	Examples: []string{
		"pctk normals scan.las out.las --knn 16",
		"pctk normals cloud.pcd out.ply --radius 0.05 --orient viewpoint --viewpoint 0,0,1.5",
	},
	Options: []*Option{
		&Option{Kind: Float, Name: "radius", Usage: "neighbourhood radius in coordinate units (0: none)"},
		&Option{Kind: Int, Name: "knn", PDAL: "knn", Usage: "neighbourhood size in points, the point itself included (0: none)"},
		&Option{Kind: String, Name: "orient", Usage: "up, viewpoint, consistent or none", Value: "up"},
		&Option{Kind: String, Name: "viewpoint", PDAL: "viewpoint", Usage: "sensor position `X,Y,Z` in the file's coordinates for --orient viewpoint"},
		&Option{Kind: Int, Name: "orient-knn", Usage: "neighbours per point in the graph of --orient consistent", Value: normals.DefaultOrientK},
		&Option{Kind: Bool, Name: "eigenvalues", Usage: "also write Eigenvalue0, Eigenvalue1, Eigenvalue2"},
	},
	IgnoreClass: true, Tiled: true,
	Params:  map[string]string{"radius": "radius", "k": "knn", "orient_k": "orient-knn"},
	Prepare: prepareNormals,
}

// prepareNormals checks the flags of pctk normals. The viewpoint is given
// in the file's coordinates; the job moves it to the local frame.
func prepareNormals(c Values) (*Job, error) {
	o := normals.Options{
		Radius:      c.Float64("radius"),
		K:           c.Int("knn"),
		OrientK:     c.Int("orient-knn"),
		Eigenvalues: c.Bool("eigenvalues"),
	}
	var err error
	if o.Orient, err = normals.ParseOrientation(c.String("orient")); err != nil {
		return nil, Usagef("--orient: want up, viewpoint, consistent or none, got %q", c.String("orient"))
	}
	vpGiven := c.String("viewpoint") != ""
	if vpGiven {
		if o.Viewpoint, err = parseXYZ(c.String("viewpoint")); err != nil {
			return nil, Usagef("--viewpoint: %v", err)
		}
		if !c.IsSet("orient") {
			o.Orient = normals.OrientViewpoint
		} else if o.Orient != normals.OrientViewpoint {
			return nil, Usagef("--viewpoint is only for --orient viewpoint, not %s", o.Orient)
		}
	}
	if err := findneighbor.CheckRadius("normals", "radius", o.Radius, true); err != nil {
		return nil, err
	}
	if o.K == 0 && o.Radius == 0 {
		return nil, Usagef("normals needs --radius, --knn or both")
	}
	if err := findneighbor.CheckMin("normals", "orient_k", o.OrientK, 1); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Orient == normals.OrientConsistent && c.Float64(TileSizeOption.Name) > 0 {
		return nil, Usagef("--orient consistent spans the whole cloud and does not run on tiles (--tile-size): orient up or toward a viewpoint, or drop --tile-size")
	}
	var stream *Streamed
	if o.Orient != normals.OrientConsistent {
		// Out of core (--max-memory): every point's moments, tile by tile.
		k := 0
		if o.K > 0 {
			k = o.K - 1
		}
		r := o.Radius
		if math.IsInf(r, 1) {
			r = 0
		}
		stream = &Streamed{Halo: r, KNN: k, Moments: true, Run: func(s *StreamRun) (*StreamResult, error) { return streamNormals(s, o, vpGiven, r, k) }}
	}
	var local *Local
	if o.Orient != normals.OrientConsistent && (o.Orient != normals.OrientViewpoint || vpGiven) {
		local = normalsLocal(o)
	}
	return &Job{
		Local:   local,
		Stream:  stream,
		CPUWork: true,
		Compute: func(p *Points) (*Result, error) {
			o := o
			if o.Orient == normals.OrientViewpoint && !vpGiven {
				if o.Viewpoint, err = fileViewpoint(&p.Cloud.Meta); err != nil {
					return nil, Usagef("%s: %v", p.In, err)
				}
			}
			for i := range o.Viewpoint {
				o.Viewpoint[i] -= p.Origin[i]
			}
			if o.K > 0 {
				warnClamped("knn", o.K, p.Len(), "point")
			}
			o.Build, o.TileSize = p.Build, p.TileSize
			res, err := normals.Estimate(p.XYZ, p.Backend, o)
			if err != nil {
				return nil, err
			}
			r := &Result{Columns: normalsColumns(res, o.Eigenvalues)}
			r.Lines, r.JSON = normalsSummary(o, res.Undefined, res.Components, p.Cloud.Len()-p.Len())
			return r, nil
		},
	}, nil
}

// normalsLocal is normals as a local stage (Beam's; memory, tiles and out
// of core keep their paths, which add the summary): each point's
// moments (localMoments), solved and oriented per point
// (normals.FromMoments). Its orientation is per point: up, or toward a
// viewpoint given in the file's coordinates.
func normalsLocal(o normals.Options) *Local {
	k := max(o.K-1, 0)
	r := o.Radius
	if math.IsInf(r, 1) {
		r = 0
	}
	dims := []core.Dimension{{Name: core.DimNormalX, Type: core.Float32}, {Name: core.DimNormalY, Type: core.Float32},
		{Name: core.DimNormalZ, Type: core.Float32}, {Name: core.DimCurvature, Type: core.Float32}}
	if o.Eigenvalues {
		for _, name := range []string{core.DimEigenvalue0, core.DimEigenvalue1, core.DimEigenvalue2} {
			dims = append(dims, core.Dimension{Name: name, Type: core.Float32})
		}
	}
	return &Local{Columns: dims, Halo: r, KNN: k, Moments: r > 0, XYZOnly: true,
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			o := o
			for i := range o.Viewpoint {
				o.Viewpoint[i] -= in.Origin[i]
			}
			n := len(in.XYZ) / 3
			res := &normals.Result{}
			cols := []*[]float32{&res.NormalX, &res.NormalY, &res.NormalZ, &res.Curvature, &res.Eigenvalues[0], &res.Eigenvalues[1], &res.Eigenvalues[2]}[:len(dims)]
			for _, c := range cols {
				*c = make([]float32, n)
			}
			var failed atomic.Pointer[error]
			reach, err := localMoments("normals", in, r, k, func(pts []int32, m []findneighbor.Moment) {
				xyz := make([]float32, 0, 3*len(pts))
				for _, i := range pts {
					xyz = append(xyz, in.XYZ[3*i:3*i+3]...)
				}
				v, err := normals.FromMoments(m, xyz, o)
				if err != nil {
					failed.Store(&err)
					return
				}
				vc := []*[]float32{&v.NormalX, &v.NormalY, &v.NormalZ, &v.Curvature, &v.Eigenvalues[0], &v.Eigenvalues[1], &v.Eigenvalues[2]}
				for j, i := range pts {
					for c, col := range cols {
						(*col)[i] = (*vc[c])[j]
					}
				}
			})
			if err == nil && failed.Load() != nil {
				err = *failed.Load()
			}
			return normalsColumns(res, o.Eigenvalues), reach, err
		}}
}

// normalsColumns returns the columns of res.
func normalsColumns(res *normals.Result, eigenvalues bool) []*core.Attribute {
	cols := []*core.Attribute{
		core.NewColumn(core.DimNormalX, res.NormalX), core.NewColumn(core.DimNormalY, res.NormalY),
		core.NewColumn(core.DimNormalZ, res.NormalZ), core.NewColumn(core.DimCurvature, res.Curvature),
	}
	if eigenvalues {
		for i, name := range []string{core.DimEigenvalue0, core.DimEigenvalue1, core.DimEigenvalue2} {
			cols = append(cols, core.NewColumn(name, res.Eigenvalues[i]))
		}
	}
	return cols
}

// normalsSummary returns the summary lines and JSON of a normals run.
func normalsSummary(o normals.Options, undefined, components, skippedPoints int) ([]string, map[string]any) {
	orient := o.Orient.String()
	if o.Orient == normals.OrientConsistent {
		orient += fmt.Sprintf(" (%s)", Count(components, "connected part"))
	}
	skipped := ""
	if skippedPoints > 0 {
		skipped = fmt.Sprintf(", %s without coordinates or ignored", Count(skippedPoints, "point"))
	}
	return []string{fmt.Sprintf("normals: %d without a normal (fewer than %d points in the neighbourhood)%s, orient %s",
			undefined, normals.MinPoints, skipped, orient)},
		map[string]any{"undefined": undefined, "orient": o.Orient.String(), "components": components, "skipped": skippedPoints}
}

// streamNormals is pctk normals out of core: each point's moments, tile by
// tile (StreamRun.StreamMoments: within radius r, or its k nearest in
// rounds), solved and oriented per point (normals.FromMoments) as they
// come, the columns stored with the tiles.
func streamNormals(s *StreamRun, o normals.Options, vpGiven bool, r float64, k int) (*StreamResult, error) {
	if o.Orient == normals.OrientViewpoint && !vpGiven {
		var err error
		if o.Viewpoint, err = fileViewpoint(&s.Header.Meta); err != nil {
			return nil, Usagef("%s: %v", s.In, err)
		}
	}
	for i := range o.Viewpoint {
		o.Viewpoint[i] -= s.Origin[i]
	}
	if o.K > 0 {
		// A k beyond the cloud: the rounds end with all there is.
		warnClamped("knn", o.K, int(s.N), "point")
	}
	ncol := 4
	if o.Eigenvalues {
		ncol = 7
	}
	var undefined atomic.Int64
	var failed atomic.Pointer[error]
	err := s.StreamMoments("normals", r, k, 4*ncol, func(m []findneighbor.Moment, xyz []float32, dst []byte) {
		res, err := normals.FromMoments(m, xyz, o)
		if err != nil {
			failed.Store(&err)
			return
		}
		undefined.Add(int64(res.Undefined))
		cols := normalsColumns(res, o.Eigenvalues)
		for j := range m {
			for c, col := range cols {
				binary.LittleEndian.PutUint32(dst[4*(ncol*j+c):], math.Float32bits(col.Data.([]float32)[j]))
			}
		}
	})
	if err == nil && failed.Load() != nil {
		err = *failed.Load()
	}
	if err != nil {
		return nil, err
	}
	rd := s.OwnedReader("normals", 4*ncol)
	lines, doc := normalsSummary(o, int(undefined.Load()), 0, int(s.Total-s.N))
	return &StreamResult{
		Columns: func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
			res := &normals.Result{}
			cols := []*[]float32{&res.NormalX, &res.NormalY, &res.NormalZ, &res.Curvature, &res.Eigenvalues[0], &res.Eigenvalues[1], &res.Eigenvalues[2]}[:ncol]
			for _, c := range cols {
				*c = make([]float32, len(rows))
			}
			for i, id := range rows {
				if id < 0 { // left out: NaN, as the runner scatters columns
					for _, col := range cols {
						(*col)[i] = float32(math.NaN())
					}
					continue
				}
				v, err := rd.Next(owners[i], id)
				if err != nil {
					return nil, err
				}
				for c, col := range cols {
					(*col)[i] = math.Float32frombits(binary.LittleEndian.Uint32(v[4*c:]))
				}
			}
			return normalsColumns(res, o.Eigenvalues), nil
		},
		Lines: lines, JSON: doc,
	}, nil
}

// fileViewpoint returns the sensor position a file records: the
// translation of a PCD file's VIEWPOINT, which PCL's NormalEstimation orients
// toward by default.
func fileViewpoint(m *core.Metadata) ([3]float64, error) {
	if h, ok := m.Extra["pcd"].(*pcd.Header); ok {
		return [3]float64{h.Viewpoint[0], h.Viewpoint[1], h.Viewpoint[2]}, nil
	}
	return [3]float64{}, errors.New("--orient viewpoint needs --viewpoint X,Y,Z (only PCD files record a viewpoint)")
}

// parseXYZ parses "X,Y,Z" into three finite numbers.
func parseXYZ(s string) ([3]float64, error) {
	var v [3]float64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return v, fmt.Errorf("want X,Y,Z, got %q", s)
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return v, fmt.Errorf("%q is not a finite number", p)
		}
		v[i] = f
	}
	return v, nil
}
