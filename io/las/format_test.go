package las

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
)

// randomCloud returns n points on a 1 mm grid around a UTM-like origin
// with every column of schema filled with values that the given point
// format family stores exactly.
func randomCloud(t testing.TB, seed uint64, n int, legacy bool, names []string) *core.Cloud {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	c := core.New(n)
	for i := range n {
		c.X[i] = 500000 + float64(rng.IntN(2000000))/1000
		c.Y[i] = 4100000 + float64(rng.IntN(2000000))/1000
		c.Z[i] = float64(rng.IntN(300000)-1000) / 1000
	}
	for _, name := range names {
		var a *core.Attribute
		if d, ok := core.LookupDimension(name); ok {
			a = core.NewAttribute(name, d.Type, n)
		} else {
			a = core.NewAttribute(name, waveType(name), n)
		}
		for i := range n {
			var v float64
			switch name {
			case core.DimReturnNumber, core.DimNumberOfReturns:
				v = float64(1 + rng.IntN(5))
				if !legacy {
					v = float64(1 + rng.IntN(15))
				}
			case core.DimClassification:
				v = float64(rng.IntN(32))
				if !legacy {
					v = float64(rng.IntN(256))
				}
			case core.DimScanChannel:
				v = float64(rng.IntN(4))
			case core.DimScanDirectionFlag, core.DimEdgeOfFlightLine, core.DimSynthetic, core.DimKeyPoint, core.DimWithheld, core.DimOverlap:
				v = float64(rng.IntN(2))
			case core.DimScanAngleRank:
				v = float64(rng.IntN(181) - 90)
				if !legacy {
					v = float64(float32(float64(rng.IntN(60001)-30000) * scanAngleStep))
				}
			case core.DimGpsTime:
				v = rng.Float64() * 1e9
			case core.DimClusterID:
				v = float64(rng.IntN(1000) - 1)
			case core.DimNormalX, core.DimNormalY, core.DimNormalZ, core.DimCurvature, DimReturnPointWaveformLocation, DimWaveformXt, DimWaveformYt, DimWaveformZt:
				v = float64(float32(rng.NormFloat64()))
			case DimWaveformDataOffset:
				v = float64(rng.Uint64() >> 12)
			default:
				lo, hi := typeRange(a.Type)
				v = float64(rng.IntN(int(min(hi-lo, 1<<20)))) + lo
			}
			a.SetFloat64(i, v)
		}
		c.Attrs = append(c.Attrs, a)
	}
	return c
}

func waveType(name string) core.Type {
	for _, f := range waveFields(0) {
		if f.name == name {
			return f.col
		}
	}
	panic("no type for " + name)
}

// sameCloud compares coordinates and every column of want with got.
func sameCloud(t *testing.T, what string, got, want *core.Cloud) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: got %d points, want %d", what, got.Len(), want.Len())
	}
	for k, p := range [3][2][]float64{{got.X, want.X}, {got.Y, want.Y}, {got.Z, want.Z}} {
		for i := range p[0] {
			if math.Abs(p[0][i]-p[1][i]) > 1e-9*max(1, math.Abs(p[1][i])) {
				t.Fatalf("%s: point %d %c: got %.10f, want %.10f", what, i, "XYZ"[k], p[0][i], p[1][i])
			}
		}
	}
	byName := make(map[string]*core.Attribute, len(got.Attrs)) // fuzzed files may have 60,000 columns
	for _, b := range got.Attrs {
		byName[b.Name] = b
	}
	for _, a := range want.Attrs {
		b := byName[a.Name]
		if b == nil {
			t.Fatalf("%s: column %s missing; got %v", what, a.Name, names(got))
		}
		if b.Type != a.Type {
			t.Fatalf("%s: column %s is %v, want %v", what, a.Name, b.Type, a.Type)
		}
		for i := range a.Len() {
			if b.Uint64(i) != a.Uint64(i) {
				t.Fatalf("%s: point %d %s: got %v, want %v", what, i, a.Name, b.Float64(i), a.Float64(i))
			}
		}
	}
}

func names(c *core.Cloud) []string {
	var out []string
	for _, a := range c.Attrs {
		out = append(out, a.Name)
	}
	return out
}

// formatColumns returns the names of the columns native to format pf.
func formatColumns(pf int) []string {
	var out []string
	for _, f := range nativeFields(pf) {
		out = append(out, f.name)
	}
	return out
}

// extraColumns are attributes no point format holds, one of each Extra
// Bytes type and the ones pctk's algorithms add.
var extraColumns = []string{core.DimClusterID, core.DimNormalX, core.DimNormalY, core.DimNormalZ, core.DimCurvature, core.DimNeighborCount, core.DimOutlier}

// TestWriteEachFormat writes every point format with every field set,
// with and without Extra Bytes, reads it back and compares every value.
func TestWriteEachFormat(t *testing.T) {
	cases := []struct {
		variant string
		pf      int
	}{
		{"1.2", 0}, {"1.2", 1}, {"1.2", 2}, {"1.2", 3}, {"1.3", 4}, {"1.3", 5},
		{"1.4", 6}, {"1.4", 7}, {"1.4", 8}, {"1.4", 9}, {"1.4", 10},
	}
	for _, tc := range cases {
		for _, extra := range []bool{false, true} {
			name := fmt.Sprintf("%s/format%d/extra=%v", tc.variant, tc.pf, extra)
			t.Run(name, func(t *testing.T) {
				seed := uint64(tc.pf*2 + map[bool]int{false: 0, true: 1}[extra])
				cols := formatColumns(tc.pf)
				if extra {
					cols = append(cols, extraColumns...)
				}
				c := randomCloud(t, seed, 1000, tc.pf <= 5, cols)
				var buf bytes.Buffer
				if err := Encode(&buf, c, tc.variant); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				out := buf.Bytes()
				if got := fmt.Sprintf("%d.%d", out[24], out[25]); got != tc.variant || int(out[104]) != tc.pf {
					t.Fatalf("seed %d: wrote LAS %s format %d, want %s format %d", seed, got, out[104], tc.variant, tc.pf)
				}
				back, err := Decode(bytes.NewReader(out))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				sameCloud(t, fmt.Sprintf("seed %d", seed), back, c)
				info := InfoOf(&back.Meta)
				if len(info.Warnings) != 0 {
					t.Errorf("seed %d: warnings %q", seed, info.Warnings)
				}
				nEB := 0
				for _, v := range info.VLRs {
					if v.Is(userSpec, recExtraBytes) {
						nEB++
						if len(v.Data) != descriptorSize*len(extraColumns) {
							t.Errorf("Extra Bytes VLR holds %d bytes, want %d descriptors", len(v.Data), len(extraColumns))
						}
						for k := range len(v.Data) / descriptorSize {
							if typ := v.Data[k*descriptorSize+ebType]; typ < 1 || typ > 10 {
								t.Errorf("descriptor %d has data type %d, want 1-10", k, typ)
							}
						}
					}
				}
				if want := map[bool]int{false: 0, true: 1}[extra]; nEB != want {
					t.Errorf("got %d Extra Bytes VLRs, want %d", nEB, want)
				}
				// The file's record length is the format's plus the extras'.
				want := formatSizes[tc.pf]
				if extra {
					want += 8 + 4*4 + 4 + 1
				}
				if got := int(info.Header.RecordLength); got != want {
					t.Errorf("record length %d, want %d", got, want)
				}
			})
		}
	}
}
