package ply

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// TestWriteBinaryMatchesValuePath encodes a cloud with a column of every
// attribute type, in several batches of blocks, with the parallel binary
// path and with the value-by-value path, in both byte orders and with float
// and double coordinates: the files must be identical.
func TestWriteBinaryMatchesValuePath(t *testing.T) {
	c, n := binaryTestCloud()
	for _, variant := range []string{"binary", "binary-be"} {
		for _, coord := range []string{"float", "double"} {
			fast, slow, ferr, serr := encodeBothWays(t, c, n, variant, coord)
			if ferr != nil || serr != nil {
				t.Fatalf("%s %s: errors %v, %v", variant, coord, ferr, serr)
			}
			if !bytes.Equal(fast, slow) {
				i := 0
				for i < min(len(fast), len(slow)) && fast[i] == slow[i] {
					i++
				}
				t.Errorf("%s, %s coordinates: parallel path differs from the value path at byte %d (lengths %d, %d)", variant, coord, i, len(fast), len(slow))
			}
		}
	}
}

// TestCheckFitsFirstVertex puts int64 values too wide for PLY's int in two
// ranges of a long column: Write (which checks them on all cores) must
// name the first.
func TestCheckFitsFirstVertex(t *testing.T) {
	c, n := binaryTestCloud()
	a := c.Attr("a_int64")
	a.SetUint64(n-5, 1<<40)
	a.SetUint64(3*codec.RecordBlock+7, 1<<41)
	_, _, err, _ := encodeBothWays(t, c, n, "binary", "float")
	want := fmt.Sprintf("ply: vertex %d: a_int64 value %d does not fit PLY type int", 3*codec.RecordBlock+7, int64(1)<<41)
	if err == nil || err.Error() != want {
		t.Errorf("Write = %v, want %q", err, want)
	}
}

// encodeBothWays encodes c with Write and with writeValues.
func encodeBothWays(t *testing.T, c *core.Cloud, n int, variant, coord string) (fast, slow []byte, ferr, serr error) {
	t.Helper()
	var bufs [2]bytes.Buffer
	var errs [2]error
	for k := range bufs {
		e, err := newEncoder(&bufs[k], &pcio.Header{Count: int64(n), Schema: c.Attrs, Meta: c.Meta}, variant, coord)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			errs[k] = e.Write(c)
		} else {
			errs[k] = e.writeValues(c)
		}
		if errs[k] == nil {
			errs[k] = e.Close()
		}
	}
	return bufs[0].Bytes(), bufs[1].Bytes(), errs[0], errs[1]
}

// binaryTestCloud has a column of every attribute type and spans several
// batches of blocks.
func binaryTestCloud() (*core.Cloud, int) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 5*codec.RecordBlock + 123
	c := core.New(n)
	for i := range n {
		c.X[i], c.Y[i], c.Z[i] = float64(rng.Float32()*1000), rng.NormFloat64()*1e6, float64(i)
	}
	for ty := core.Int8; ty <= core.Float64; ty++ {
		a := core.NewAttribute("a_"+ty.String(), ty, n)
		for i := range n {
			v := rng.Uint64()
			switch ty {
			case core.Int64: // PLY has no 64-bit integers: int64 is written as int
				v = uint64(int64(int32(v)))
			case core.Uint64:
				v = uint64(uint32(v))
			}
			a.SetUint64(i, v)
		}
		if err := c.SetAttr(a); err != nil {
			panic(err)
		}
	}
	return c, n
}
