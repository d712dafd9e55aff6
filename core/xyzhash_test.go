package core

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"runtime"
	"testing"
)

// TestHashXYZ checks HashXYZ against its definition computed with
// hash/fnv, for clouds of zero, one, a partial and several blocks, with
// one and several cores, and that it sees a change of one bit.
func TestHashXYZ(t *testing.T) {
	ref := func(c *Cloud) uint64 {
		outer := fnv.New64a()
		for lo := 0; lo < c.Len(); lo += hashBlock {
			h := fnv.New64a()
			var b [8]byte
			for i := lo; i < min(lo+hashBlock, c.Len()); i++ {
				for _, v := range []float64{c.X[i], c.Y[i], c.Z[i]} {
					binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
					h.Write(b[:])
				}
			}
			binary.LittleEndian.PutUint64(b[:], h.Sum64())
			outer.Write(b[:])
		}
		return outer.Sum64()
	}
	for _, n := range []int{0, 1, 1000, 3*hashBlock + 17} {
		c := New(n)
		for i := range n {
			c.X[i], c.Y[i], c.Z[i] = float64(i)*0.1, -float64(i)*1e6, math.Pi*float64(i%7)
		}
		want := ref(c)
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			got := HashXYZ(c.X, c.Y, c.Z)
			runtime.GOMAXPROCS(old)
			if got != want {
				t.Errorf("%d points, GOMAXPROCS %d: HashXYZ = %016x, want %016x", n, procs, got, want)
			}
		}
		if n > 0 {
			c.Z[n-1] = math.Nextafter(c.Z[n-1], math.Inf(1))
			if HashXYZ(c.X, c.Y, c.Z) == want {
				t.Errorf("%d points: HashXYZ did not change with the last coordinate", n)
			}
		}
	}
}
