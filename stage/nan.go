package stage

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/core"
)

// keepNaNOption is --keep-nan, one rule for every neighbour command (every
// Filter): points with a non-finite coordinate (the missing pixels of an
// organised PCD cloud) take no part, as points --ignore-class leaves out,
// instead of failing the run (finiteInput).
var keepNaNOption = &Option{Kind: Bool, Name: "keep-nan", Usage: "let points with a non-finite coordinate (an organised cloud's missing pixels) take no part, kept in OUT with NaN or 0 values, instead of failing; in memory only"}

// keepNaNHint ends the message of a non-finite coordinate.
const keepNaNHint = "; --keep-nan lets such points (an organised cloud's missing pixels) take no part"

// finiteInput checks the cloud (core.Cloud.Validate). Non-finite
// coordinates are an error suggesting --keep-nan, unless keepNaN: then it
// returns the indices of the finite points (nil when all are), which alone
// take part, as in PCL, whose filters and features skip NaN points of a
// cloud that is not dense. A cloud of such points alone has no point that
// takes part.
func finiteInput(c *core.Cloud, keepNaN bool) ([]int, error) {
	err := c.Validate()
	if err == nil {
		return nil, nil
	}
	finite := make([]int, 0, c.Len())
	for i := range c.X {
		if isFinite(c.X[i]) && isFinite(c.Y[i]) && isFinite(c.Z[i]) {
			finite = append(finite, i)
		}
	}
	if !keepNaN || len(finite) == c.Len() {
		if len(finite) < c.Len() {
			return nil, fmt.Errorf("%w%s", err, keepNaNHint)
		}
		return nil, err
	}
	// Validate stopped at the first non-finite point; the columns must
	// still have one value per point.
	n := c.Len()
	if len(c.Y) != n || len(c.Z) != n {
		return nil, fmt.Errorf("X, Y, Z have %d, %d, %d values", n, len(c.Y), len(c.Z))
	}
	for _, a := range c.Attrs {
		if a.Len() != n {
			return nil, fmt.Errorf("attribute %s has %d values for %d points", a.Name, a.Len(), n)
		}
	}
	return finite, nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
