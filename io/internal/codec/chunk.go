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
