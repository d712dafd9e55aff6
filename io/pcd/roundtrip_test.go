package pcd

import (
	"fmt"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
)

var sharedDirs = []string{"../../../shared/data/pcd", "../../../shared/data/pdal/pcd"}

// brokenShared are the shared files that are not valid PCD, with the error
// each must give.
var brokenShared = map[string]string{
	// PDAL's test of a file with no header at all.
	"missingheader.pcd": `pcd: line 1: not a PCD file: first line is "289814.15 4320978.61 170.76"`,
}

func sharedFiles(t testing.TB) []string { return codectest.SharedFiles(t, sharedDirs, "*.pcd") }

// TestRoundTripShared reads every shared PCD file and writes it in all three
// encodings; each must read back to the same points, attributes, header
// and (PLY) element data, bit for bit. Broken files must give their error.
func TestRoundTripShared(t *testing.T) {
	codecUnderTest.RoundTripFiles(t, sharedFiles(t), brokenShared, variants)
}

var codecUnderTest = codectest.Codec{Decode: Decode, Encode: Encode, DiffMeta: diffHeader}

var attrNames = codectest.AttrNames

// diffHeader compares the fields, organisation and viewpoint of a and b.
func diffHeader(a, b *core.Cloud, _ bool) string {
	ha, _ := a.Meta.Extra[codecName].(*Header)
	hb, _ := b.Meta.Extra[codecName].(*Header)
	if ha == nil || hb == nil {
		return "pcd header missing"
	}
	if fmt.Sprint(ha.Fields, ha.Width, ha.Height, ha.Viewpoint) != fmt.Sprint(hb.Fields, hb.Width, hb.Height, hb.Viewpoint) {
		return fmt.Sprintf("header: got %v %dx%d %v, want %v %dx%d %v", hb.Fields, hb.Width, hb.Height, hb.Viewpoint, ha.Fields, ha.Width, ha.Height, ha.Viewpoint)
	}
	return ""
}
