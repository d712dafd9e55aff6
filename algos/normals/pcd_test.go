package normals

// PCD files for the peer tests, through the product's codec io/pcd: tests
// may read and write files, the package itself knows nothing of them.

import (
	"fmt"
	"io"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
)

// readPCD reads a PCD file and returns the cloud and its points as float32
// x, y, z triples: the scans and PCL's output store x, y, z as F 4, so the
// conversion gives back exactly the file's values.
func readPCD(path string) (*core.Cloud, []float32, error) {
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	xyz := make([]float32, 3*c.Len())
	for i := range c.Len() {
		xyz[3*i], xyz[3*i+1], xyz[3*i+2] = float32(c.X[i]), float32(c.Y[i]), float32(c.Z[i])
	}
	return c, xyz, nil
}

// float32Column returns the values of c's float32 attribute name (a PCD
// field under its PDAL name: normal_x is NormalX).
func float32Column(c *core.Cloud, name string) ([]float32, error) {
	a := c.Attr(name)
	if a == nil {
		return nil, fmt.Errorf("no %s attribute", name)
	}
	v, ok := a.Data.([]float32)
	if !ok {
		return nil, fmt.Errorf("attribute %s is %v, want float32", name, a.Type)
	}
	return v, nil
}

// writePCD writes points as a binary PCD with fields x y z, F 4: io/pcd
// writes coordinates that are all float32 values as float32, so PCL and
// Open3D read exactly xyz.
func writePCD(path string, xyz []float32) error {
	c := core.New(len(xyz) / 3)
	for i := range c.Len() {
		c.X[i], c.Y[i], c.Z[i] = float64(xyz[3*i]), float64(xyz[3*i+1]), float64(xyz[3*i+2])
	}
	return pcio.WriteAtomic(path, func(w io.Writer) error { return pcd.Encode(w, c, "binary") })
}
