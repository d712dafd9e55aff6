package tile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// named is a backend told apart by its name, for Each's tests.
type named struct {
	findneighbor.Backend
	name string
}

func (n named) Name() string { return n.name }

// TestEachOrder runs Each on 1 to 4 backends whose works finish in a
// random order and checks that merge sees every tile once, in increasing
// order, that every backend of a Pool worked, and that no more than two
// tiles per backend were ever running or waiting for their merge.
func TestEachOrder(t *testing.T) {
	for nb := 1; nb <= 4; nb++ {
		for _, n := range []int{0, 1, 7, 100} {
			t.Run(fmt.Sprintf("backends%d/tiles%d", nb, n), func(t *testing.T) {
				bs := make([]findneighbor.Backend, nb)
				for i := range bs {
					bs[i] = named{findneighbor.CPU(), fmt.Sprint(i)}
				}
				var mu sync.Mutex
				r := rand.New(rand.NewPCG(uint64(nb), uint64(n)))
				used := map[string]int{}
				var pending, peak atomic.Int64
				var merged []int
				err := Each(Pool(bs...), n, func(w findneighbor.Backend, k int) (int, error) {
					if p := pending.Add(1); p > peak.Load() {
						peak.Store(p)
					}
					mu.Lock()
					used[w.Name()]++
					d := time.Duration(r.IntN(300)) * time.Microsecond
					mu.Unlock()
					time.Sleep(d)
					return 10 * k, nil
				}, func(k, v int) error {
					pending.Add(-1)
					if v != 10*k {
						t.Errorf("merge(%d, %d), want merge(%d, %d)", k, v, k, 10*k)
					}
					merged = append(merged, k)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				order := make([]int, n)
				for k := range order {
					order[k] = k
				}
				if !reflect.DeepEqual(merged, order) && n > 0 {
					t.Errorf("merged %v, want %v", merged, order)
				}
				if n >= 4*nb && len(used) != nb {
					t.Errorf("works ran on %d of %d backends: %v", len(used), nb, used)
				}
				want := 2 * nb
				if nb == 1 {
					want = 1 // one after another
				}
				if got := InMemory(Pool(bs...)); got != want {
					t.Errorf("InMemory = %d, want %d", got, want)
				}
				if p := peak.Load(); p > int64(want) {
					t.Errorf("%d tiles running or waiting at once, want at most %d", p, want)
				}
			})
		}
	}
}

// TestEachError checks that Each returns the error of the first failing
// tile in tile order, as a run on one backend does, after merging the
// tiles before it, and merges nothing after it.
func TestEachError(t *testing.T) {
	for nb := 1; nb <= 3; nb++ {
		bs := fntest.Jitters(findneighbor.CPU(), nb, 5, 0)
		errTile := func(k int) error { return fmt.Errorf("tile %d failed", k) }
		var merged []int
		err := Each(Pool(bs...), 40, func(w findneighbor.Backend, k int) (int, error) {
			if k%10 == 7 { // tiles 7, 17, ... fail; the later ones sooner
				time.Sleep(time.Duration(40-k) * 50 * time.Microsecond)
				return 0, errTile(k)
			}
			return k, nil
		}, func(k, _ int) error {
			merged = append(merged, k)
			if k == 5 && nb == 3 {
				return errors.New("merge of tile 5 failed")
			}
			return nil
		})
		want, wantMerged := errTile(7).Error(), 7
		if nb == 3 {
			want, wantMerged = "merge of tile 5 failed", 6
		}
		if err == nil || err.Error() != want {
			t.Errorf("%d backends: error %v, want %q", nb, err, want)
		}
		if len(merged) != wantMerged {
			t.Errorf("%d backends: merged %v, want tiles 0 to %d", nb, merged, wantMerged-1)
		}
	}
}

// TestPoolIsFirst checks that a Pool is its first backend outside
// tiles, and that Backends lists its backends (a backend alone: itself).
func TestPoolIsFirst(t *testing.T) {
	a, b := named{findneighbor.CPU(), "a"}, named{findneighbor.CPU(), "b"}
	s := Pool(a, b)
	if s.Name() != "a" {
		t.Errorf("Pool(a, b).Name() = %q, want a", s.Name())
	}
	if got := Backends(s); !reflect.DeepEqual(got, []findneighbor.Backend{a, b}) {
		t.Errorf("Backends(Pool(a, b)) = %v", got)
	}
	if got := Backends(a); !reflect.DeepEqual(got, []findneighbor.Backend{a}) {
		t.Errorf("Backends(a) = %v", got)
	}
	if Pool(a) != findneighbor.Backend(a) {
		t.Error("Pool of one backend is not that backend")
	}
}

// TestTiledPool runs CountsTiled and MomentsTiled (radius, and k nearest
// in rounds) on a Pool of three cpu backends whose tiles finish out of
// order and holds them to the run on one backend and, for counts, to the
// whole cloud's index.
func TestTiledPool(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xyz := make([]float32, 0, 3*3000)
	for range 3000 {
		xyz = append(xyz, 20*r.Float32(), 20*r.Float32(), r.Float32())
	}
	cpu := findneighbor.CPU()
	pooled := Pool(fntest.Jitters(cpu, 3, 9, time.Millisecond)...)
	const radius, size = 0.8, 3.0
	ix, err := cpu.Build(xyz, radius, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	whole := make([]uint32, len(xyz)/3)
	if err := ix.Counts(nil, whole); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for _, b := range []findneighbor.Backend{cpu, pooled} {
		got, err := CountsTiled(xyz, b, radius, size, findneighbor.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("CountsTiled on %d backends differs from the whole cloud's counts", len(Backends(b)))
		}
	}
	moments := func(b findneighbor.Backend, r float64, k int) []findneighbor.Moment {
		out := make([]findneighbor.Moment, len(xyz)/3)
		err := MomentsTiled(xyz, b, r, k, size, findneighbor.BuildOptions{Workers: 2}, func(pts []int32, m []findneighbor.Moment) {
			for j, i := range pts {
				out[i] = m[j]
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		r float64
		k int
	}{{radius, 0}, {radius, 6}, {0, 40}} {
		if one, sp := moments(cpu, c.r, c.k), moments(pooled, c.r, c.k); !reflect.DeepEqual(one, sp) {
			t.Errorf("MomentsTiled r %g k %d: a Pool of 3 backends differs from one backend", c.r, c.k)
		}
	}
}
