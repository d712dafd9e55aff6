package stage

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/cloudtest"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"

	_ "github.com/pctk/pctk/io/ply"
	_ "github.com/pctk/pctk/primitives/findneighbor/optix"
)

// TestEveryStageEverywhere walks the registry: every stage, with the
// options of its first example, on every backend usable here but brute
// (cpu; cuda, optix and optix-sphere on a GPU machine, required there with
// PCTK_REQUIRE_GPU; brute is held to cpu by every algorithm's tests), gives the same output in memory, on --tile-size tiles,
// out of core (--max-memory), on a tile collection of two files and as a
// pctk pipeline step, byte for byte (the collection's files point for
// point, bit for bit). A new stage is covered by registering it with an
// example.
func TestEveryStageEverywhere(t *testing.T) {
	var names []string
	for _, be := range fntest.Usable(t) {
		if be.Name() != "brute" {
			names = append(names, be.Name())
		}
	}
	if os.Getenv("PCTK_REQUIRE_GPU") != "" && len(names) < 4 {
		t.Fatalf("PCTK_REQUIRE_GPU is set but only %v are usable", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { everyStage(t, name) })
	}
}

// everyStage is TestEveryStageEverywhere on the backend named backend.
func everyStage(t *testing.T, backend string) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 6000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "street.ply")
	cloudtest.Write(t, in, cloud)
	half := cloud.Len() / 2
	a, b := filepath.Join(dir, "a.ply"), filepath.Join(dir, "b.ply")
	cloudtest.Write(t, a, cloud.Select(seq(0, half)))
	cloudtest.Write(t, b, cloud.Select(seq(half, cloud.Len())))
	for _, s := range Stages() {
		t.Run(strings.ReplaceAll(s.Name, " ", "_"), func(t *testing.T) {
			words, err := s.ExampleOptions()
			if err != nil {
				t.Fatal(err)
			}
			run := func(name string, args []string, extra ...string) string {
				t.Helper()
				out := filepath.Join(dir, strings.ReplaceAll(s.Name, " ", "_")+"-"+name)
				if len(args) == 1 {
					args = append(args, out+".ply")
				} else {
					args = append(args, out+string(filepath.Separator))
				}
				v := NewSettings(s.AllOptions())
				if _, err := v.ParseWords(append(append(slices.Clone(words), "--backend", backend), extra...)); err != nil {
					t.Fatal(err)
				}
				if err := s.Run(v, args); err != nil {
					t.Fatalf("%s %s %v: %v", s.Name, strings.Join(append(words, extra...), " "), args, err)
				}
				return out
			}
			mem := readBytes(t, run("memory", []string{in})+".ply")
			if s.Tiled {
				if got := readBytes(t, run("tiles", []string{in}, "--tile-size", "50")+".ply"); !bytes.Equal(got, mem) {
					t.Errorf("--tile-size 50 differs from the run in memory")
				}
			}
			if s.streams() {
				extra := []string{"--max-memory", "64MiB"}
				if s.Tiled {
					extra = append(extra, "--tile-size", "60")
				}
				if got := readBytes(t, run("outofcore", []string{in}, extra...)+".ply"); !bytes.Equal(got, mem) {
					t.Errorf("--max-memory differs from the run in memory")
				}
				// The collection out of core, the run a fused one (in memory,
				// when it fits) must equal, then as it runs.
				var out string
				func() {
					fuseCollections = false
					defer func() { fuseCollections = true }()
					out = run("collection", []string{a, b})
				}()
				parts := []*core.Cloud{cloudtest.Read(t, filepath.Join(out, "a.ply")), cloudtest.Read(t, filepath.Join(out, "b.ply"))}
				if err := parts[0].Append(parts[1]); err != nil {
					t.Fatal(err)
				}
				if err := sameCloud(parts[0], cloudtest.Read(t, run("memory", []string{in})+".ply")); err != nil {
					t.Errorf("a collection of two files differs from the run in memory: %v", err)
				}
				fused := run("collection-fused", []string{a, b})
				for _, name := range []string{"a.ply", "b.ply"} {
					if !bytes.Equal(readBytes(t, filepath.Join(fused, name)), readBytes(t, filepath.Join(out, name))) {
						t.Errorf("the collection's run in memory differs from its run out of core in %s", name)
					}
				}
				// pctk pipeline over the collection, and with --max-memory.
				pout := filepath.Join(dir, strings.ReplaceAll(s.Name, " ", "_")+"-pipeline-collection") + string(filepath.Separator)
				if err := RunPipelineFiles(pipelineSettings(t, backend), []string{a, b}, [][]string{append(strings.Fields(s.Name), words...)}, pout); err != nil {
					t.Fatalf("pipeline over a collection: %v", err)
				}
				for _, name := range []string{"a.ply", "b.ply"} {
					if !bytes.Equal(readBytes(t, filepath.Join(pout, name)), readBytes(t, filepath.Join(out, name))) {
						t.Errorf("pctk pipeline over a collection differs from the collection's run in %s", name)
					}
				}
				pout = filepath.Join(dir, strings.ReplaceAll(s.Name, " ", "_")+"-pipeline-outofcore.ply")
				step := append(strings.Fields(s.Name), words...)
				if s.Tiled {
					step = append(step, "--tile-size", "60")
				}
				if err := RunPipeline(pipelineSettings(t, backend, "--max-memory", "64MiB"), in, [][]string{step}, pout); err != nil {
					t.Fatalf("pipeline --max-memory: %v", err)
				}
				if !bytes.Equal(readBytes(t, pout), mem) {
					t.Errorf("pctk pipeline --max-memory differs from the run in memory")
				}
			}
			out := filepath.Join(dir, strings.ReplaceAll(s.Name, " ", "_")+"-pipeline.ply")
			step := append(strings.Fields(s.Name), words...)
			pv := pipelineSettings(t, backend)
			if err := RunPipeline(pv, in, [][]string{step}, out); err != nil {
				t.Fatalf("pipeline %q: %v", step, err)
			}
			if got := readBytes(t, out); !bytes.Equal(got, mem) {
				t.Errorf("pctk pipeline differs from the run in memory")
			}
		})
	}
}

// pipelineOptions are the options of pctk pipeline itself.
func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameCloud reports how got differs from want: points, coordinates and
// every attribute, bit for bit.
func sameCloud(got, want *core.Cloud) error {
	if got.Len() != want.Len() {
		return fmt.Errorf("%d points, want %d", got.Len(), want.Len())
	}
	for i := range want.Len() {
		if math.Float64bits(got.X[i]) != math.Float64bits(want.X[i]) || math.Float64bits(got.Y[i]) != math.Float64bits(want.Y[i]) || math.Float64bits(got.Z[i]) != math.Float64bits(want.Z[i]) {
			return fmt.Errorf("point %d at (%g, %g, %g), want (%g, %g, %g)", i, got.X[i], got.Y[i], got.Z[i], want.X[i], want.Y[i], want.Z[i])
		}
	}
	for _, wa := range want.Attrs {
		ga := got.Attr(wa.Name)
		if ga == nil || ga.Type != wa.Type {
			return fmt.Errorf("attribute %s missing or of another type", wa.Name)
		}
		for i := range want.Len() {
			if ga.Uint64(i) != wa.Uint64(i) {
				return fmt.Errorf("%s of point %d: %v, want %v", wa.Name, i, ga.Float64(i), wa.Float64(i))
			}
		}
	}
	return nil
}

// pipelineSettings returns pctk pipeline's settings with --backend backend
// and the option words extra.
func pipelineSettings(t *testing.T, backend string, extra ...string) *Settings {
	t.Helper()
	v := NewSettings(PipelineOptions())
	if _, err := v.ParseWords(append([]string{"--backend", backend}, extra...)); err != nil {
		t.Fatal(err)
	}
	return v
}
