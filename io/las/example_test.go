package las_test

import (
	"bytes"
	"fmt"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
)

// A cloud with a new attribute is written as LAS 1.4 with Extra Bytes and
// read back with its fields.
func Example() {
	c := core.New(3)
	for i := range 3 {
		c.X[i], c.Y[i], c.Z[i] = 500000+float64(i), 4100000.25, 12.5
	}
	cls, _ := c.AddAttr(core.DimClassification, core.Uint8)
	cls.SetFloat64(1, 2)
	cid, _ := c.AddAttr(core.DimClusterID, core.Int64)
	cid.SetFloat64(2, -1)
	c.Meta.CRS = core.CRS{EPSG: 32633}

	var buf bytes.Buffer
	if err := las.Encode(&buf, c, ""); err != nil {
		fmt.Println(err)
		return
	}
	back, err := las.Decode(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	info := las.InfoOf(&back.Meta)
	fmt.Println("LAS", info.Header.Version(), "point format", info.Header.PointFormat, "EPSG", back.Meta.CRS.EPSG)
	for i := range back.Len() {
		fmt.Printf("%.2f %.2f %.2f class %v cluster %v\n", back.X[i], back.Y[i], back.Z[i],
			back.Attr(core.DimClassification).Float64(i), back.Attr(core.DimClusterID).Float64(i))
	}
	// Output:
	// LAS 1.4 point format 6 EPSG 32633
	// 500000.00 4100000.25 12.50 class 0 cluster 0
	// 500001.00 4100000.25 12.50 class 2 cluster 0
	// 500002.00 4100000.25 12.50 class 0 cluster -1
}
