package dbscan_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// sharedData is ../shared/data seen from this package's folder.
const sharedData = "../../../shared/data"

// needSklearn skips the test when scikit-learn is missing, except in CI
// (CI=true), where .ci/deps/debian-peers.sh installs it and its absence is a
// failure.
func needSklearn(t *testing.T) {
	t.Helper()
	err := peers.Available(peers.Sklearn)
	if err == nil {
		t.Logf("scikit-learn %s", peers.Version(peers.Sklearn))
		return
	}
	msg := fmt.Sprintf("scikit-learn not usable (%v); install it with .ci/deps/debian-peers.sh (apt-get install python3-sklearn)", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

type sklearnJob struct {
	eps    float64
	minPts []int
}

// sklearnDBSCAN runs scikit-learn on xyz (converted exactly to float64) and
// returns labels and core flags per (eps, min_pts) pair, in job order.
func sklearnDBSCAN(t *testing.T, xyz []float32, jobs []sklearnJob) (labels [][]int32, core [][]bool) {
	t.Helper()
	var pairs []peers.DBSCANJob
	for _, j := range jobs {
		for _, m := range j.minPts {
			pairs = append(pairs, peers.DBSCANJob{Eps: j.eps, MinPts: m})
		}
	}
	res, err := peers.SklearnDBSCAN(t.TempDir(), xyz, pairs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		labels, core = append(labels, r.Labels), append(core, r.Core)
	}
	return labels, core
}

// snap snaps the points with peers.Snap for the largest eps of the jobs and
// rounds every job's eps to the grid, so that float32 and float64
// distances agree on every pair that can decide "within ε".
func snap(t *testing.T, xyz []float32, jobs []sklearnJob) []float32 {
	t.Helper()
	maxEps := 0.0
	for _, j := range jobs {
		maxEps = max(maxEps, j.eps)
	}
	out, u, err := peers.Snap(xyz, maxEps)
	if err != nil {
		t.Fatal(err)
	}
	for k := range jobs {
		jobs[k].eps = math.Round(jobs[k].eps/u) * u
	}
	return out
}

// sklearnCloud is a cloud to compare on, with the jobs to run.
type sklearnCloud struct {
	name string
	xyz  []float32 // local float32 coordinates
	jobs []sklearnJob
}

func TestMatchesScikitLearn(t *testing.T) {
	needSklearn(t)
	// The cpu backend when it is registered; brute force otherwise, on
	// fewer points.
	b, err := findneighbor.Get("cpu")
	maxPoints := 100_000
	if err != nil {
		b, maxPoints = findneighbor.Brute(), 12_000
		t.Logf("no cpu backend (%v): comparing with brute on at most %d points", err, maxPoints)
	}
	if testing.Short() {
		maxPoints = min(maxPoints, 12_000)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))

	// Synthetic clouds keep their density whatever their size: uniform
	// with 30 points per unit volume (eps 0.6: about 27 neighbours), and
	// Gaussian blobs of three widths.
	var clouds []sklearnCloud
	nu := min(30_000, maxPoints)
	uni := make([]float32, 3*nu)
	side := 10 * float32(math.Cbrt(float64(nu)/30_000))
	for i := range uni {
		uni[i] = r.Float32() * side
	}
	clouds = append(clouds, sklearnCloud{"uniform", uni, []sklearnJob{{0.6, []int{10, 28, 40}}}})
	nb := min(40_000, maxPoints)
	blobs := make([]float32, 3*nb)
	centres := make([]float32, 3*25)
	for i := range centres {
		centres[i] = r.Float32() * 60
	}
	spread := float32(math.Cbrt(float64(nb) / 40_000))
	for i := range nb {
		c := r.IntN(len(centres) / 3)
		for a := range 3 {
			blobs[3*i+a] = centres[3*c+a] + float32(r.NormFloat64())*float32(1+c%3)*spread
		}
	}
	clouds = append(clouds, sklearnCloud{"blobs", blobs, []sklearnJob{{0.5, []int{5, 20}}, {1.2, []int{50}}}})

	// The real clouds' jobs are for up to 100,000 points; scans are
	// surfaces, so fewer points need eps larger by the square root.
	real := []struct {
		name string
		path string
		flat bool
		jobs []sklearnJob
	}{
		{"haystack_rock xyz", "las/haystack_rock.las", false, []sklearnJob{{3.1, []int{4, 12}}, {7.3, []int{30}}}},
		{"haystack_rock xy", "las/haystack_rock.las", true, []sklearnJob{{4.3, []int{10, 30}}}},
		{"lion_takanawa", "las/lion_takanawa", false, []sklearnJob{{0.03, []int{5, 15}}, {0.07, []int{40}}}},
		{"table_scene_lms400", "pcd/table_scene_lms400.pcd", false, []sklearnJob{{0.006, []int{6, 20}}, {0.012, []int{50}}}},
	}
	for _, rc := range real {
		path := filepath.Join(sharedData, rc.path)
		if _, err := os.Stat(path); err != nil {
			t.Logf("skipping %s: %v (../shared/data is not part of a fresh clone)", rc.name, err)
			continue
		}
		c, err := readXYZ(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		full := c.Len()
		c = subsample(c, maxPoints)
		if scale := math.Sqrt(float64(min(full, 100_000)) / float64(c.Len())); scale > 1 {
			for k := range rc.jobs {
				rc.jobs[k].eps *= scale
			}
		}
		clouds = append(clouds, sklearnCloud{rc.name, c.Local(rc.flat).XYZ, rc.jobs})
	}

	for _, c := range clouds {
		t.Run(c.name, func(t *testing.T) {
			c.xyz = snap(t, c.xyz, c.jobs)
			start := time.Now()
			skLabels, skCore := sklearnDBSCAN(t, c.xyz, c.jobs)
			skTime := time.Since(start)
			k := 0
			for _, job := range c.jobs {
				run, err := dbscan.Cluster(c.xyz, b, dbscan.Options{Eps: job.eps, MinPts: job.minPts})
				if err != nil {
					t.Fatal(err)
				}
				idx, err := b.Build(c.xyz, float32(job.eps), findneighbor.BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				csr, err := idx.Neighbors(nil, findneighbor.NeighborOptions{})
				idx.Close()
				if err != nil {
					t.Fatal(err)
				}
				nbrs := func(i int) ([]int32, []float32) {
					js := csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]]
					d2 := make([]float32, len(js))
					for m, j := range js {
						dx, dy, dz := c.xyz[3*i]-c.xyz[3*j], c.xyz[3*i+1]-c.xyz[3*j+1], c.xyz[3*i+2]-c.xyz[3*j+2]
						d2[m] = dx*dx + dy*dy + dz*dz
					}
					return js, d2
				}
				total := 0
				for _, cnt := range run.Counts {
					total += int(cnt)
				}
				t.Logf("eps %g: %.1f neighbours per point on average", job.eps, float64(total)/float64(len(c.xyz)/3))
				for _, res := range run.Results {
					checkAgainst(t, fmt.Sprintf("%d points, eps %g, min_pts %d (seed %d)", len(c.xyz)/3, job.eps, res.MinPts, seed),
						res, skLabels[k], skCore[k], nbrs)
					t.Logf("eps %g min_pts %d: %d clusters, %d core, %d noise of %d points", job.eps, res.MinPts, len(res.Sizes), res.CoreCount, res.NoiseCount, len(c.xyz)/3)
					k++
				}
			}
			t.Logf("scikit-learn took %v for %d runs", skTime.Round(time.Millisecond), k)
		})
	}
}

// subsample keeps at most max points, evenly spaced in file order, so the
// test's speed does not depend on the size of the shared clouds.
func subsample(c *core.Cloud, max int) *core.Cloud {
	n := c.Len()
	if n <= max {
		return c
	}
	idx := make([]int, max)
	for k := range idx {
		idx[k] = int(int64(k) * int64(n) / int64(max))
	}
	return c.Select(idx)
}

// readXYZ reads the coordinates of a cloud file, or of every .las file of
// a folder in name order, with the product's codecs (tests may use io; the
// algorithms may not). Points with a non-finite coordinate (the NaN pixels
// of organised PCD scans) are left out.
func readXYZ(path string) (*core.Cloud, error) {
	files := []string{path}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if files, _ = filepath.Glob(filepath.Join(path, "*.las")); len(files) == 0 {
			return nil, fmt.Errorf("no .las files in %s", path)
		}
	}
	all := core.New(0)
	for _, f := range files {
		c, _, err := pcio.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for i := range c.Len() {
			if x, y, z := c.X[i], c.Y[i], c.Z[i]; finite(x) && finite(y) && finite(z) {
				all.X, all.Y, all.Z = append(all.X, x), append(all.Y, y), append(all.Z, z)
			}
		}
	}
	return all, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
