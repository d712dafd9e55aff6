package codec

import (
	"fmt"

	"github.com/pctk/pctk/core"
)

// CheckChunk checks that c, a chunk given to a streaming encoder, has the
// schema's columns in order and one value per point in every column.
func CheckChunk(codec string, c *core.Cloud, schema []*core.Attribute) error {
	n := c.Len()
	if len(c.Y) != n || len(c.Z) != n {
		return fmt.Errorf("%s: X, Y, Z have %d, %d, %d values", codec, n, len(c.Y), len(c.Z))
	}
	if len(c.Attrs) != len(schema) {
		return fmt.Errorf("%s: chunk has %d attributes, header %d", codec, len(c.Attrs), len(schema))
	}
	for i, a := range c.Attrs {
		if a.Name != schema[i].Name || a.Type != schema[i].Type {
			return fmt.Errorf("%s: chunk attribute %d is %s %v, header says %s %v", codec, i, a.Name, a.Type, schema[i].Name, schema[i].Type)
		}
		if a.Len() != n {
			return fmt.Errorf("%s: attribute %s has %d values for %d points", codec, a.Name, a.Len(), n)
		}
	}
	return nil
}

// CheckWrite checks a chunk c given to a streaming encoder's Write: its
// schema (CheckChunk), its coordinates when the encoder chose float32 ones
// from the source's note (check32, see CheckFloat32), and that written+len(c)
// points stay within the count the header announced. what names the
// points ("points", "vertices").
func CheckWrite(codec string, c *core.Cloud, schema []*core.Attribute, check32 bool, written, count int64, what string) error {
	if err := CheckChunk(codec, c, schema); err != nil {
		return err
	}
	if check32 {
		if err := CheckFloat32(codec, c, written); err != nil {
			return err
		}
	}
	if n := written + int64(c.Len()); n > count {
		return fmt.Errorf("%s: %d %s written, header announced %d", codec, n, what, count)
	}
	return nil
}
